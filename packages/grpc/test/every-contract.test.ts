import type { DescService } from '@bufbuild/protobuf';
import * as blog from '@inkwell/proto/blog';
import * as bookshelves from '@inkwell/proto/bookshelves';
import * as messaging from '@inkwell/proto/messaging';
import * as stories from '@inkwell/proto/stories';
import * as users from '@inkwell/proto/users';
import * as webhooks from '@inkwell/proto/webhooks';
import { describe, expect, it } from 'vitest';
import { compileContract, createRequestValidator } from '../src/contract.js';
import { unaryMethods } from '../src/definition.js';

/** Every gRPC service the API's services serve, from the proto's generated descriptors. */
const services = [blog, bookshelves, messaging, stories, users, webhooks].flatMap((module) =>
  Object.values(module).filter((value): value is DescService => typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'service'),
);

// A server compiles its requests' rules after it listens (GrpcServer.listen), so a rule that does
// not compile would only show on a call: this is where it fails instead.
describe('every RPC of every service', () => {
  it('finds the services', () => {
    expect(services.map((service) => service.typeName)).toEqual(
      expect.arrayContaining(['inkwell.users.v1.UsersService', 'inkwell.stories.v1.StoriesService', 'inkwell.webhooks.v1.WebhookService']),
    );
  });

  it.each(services.map((service) => [service.typeName, service] as const))('%s: its requests’ rules compile', (_name, service) => {
    const validator = createRequestValidator();
    for (const method of unaryMethods(service)) expect(() => compileContract(method, validator).prepare(), method.name).not.toThrow();
  });
});

import type { DescService } from '@bufbuild/protobuf';
import { createGrpcClient, Metadata, type GrpcClientOptions } from '@inkwell/grpc';
import { BlogService } from '@inkwell/proto/blog';
import { BookshelvesService } from '@inkwell/proto/bookshelves';
import { MessagingService } from '@inkwell/proto/messaging';
import { StoriesService } from '@inkwell/proto/stories';
import { UsersService } from '@inkwell/proto/users';
import { WebhookService } from '@inkwell/proto/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOG_ISSUERS } from '../../../services/blog/src/transport/issuers.policy.js';
import { BOOKSHELVES_ISSUERS } from '../../../services/bookshelves/src/transport/issuers.policy.js';
import { MESSAGING_ISSUERS } from '../../../services/messaging/src/transport/issuers.policy.js';
import { STORIES_ISSUERS } from '../../../services/stories/src/transport/issuers.policy.js';
import { USERS_ISSUERS } from '../../../services/users/src/transport/issuers.policy.js';
import { WEBHOOKS_ISSUERS } from '../../../services/webhooks/src/transport/issuers.policy.js';
import { callCode } from '../src/call-code.js';
import { dropSchemas, ensureDatabase } from '../src/database.js';
import { ISSUERS, KeyRing } from '../src/key-ring.js';
import { stackEnv } from '../src/stack-env.js';
import { SERVICES, startSystem, type RunningSystem } from '../src/system.js';
import { createTestUser } from '../src/test-users.js';

/** Every gRPC service of the system, by the process that serves it. */
const DESCRIPTORS: Record<string, DescService> = { users: UsersService, stories: StoriesService, bookshelves: BookshelvesService, messaging: MessagingService, blog: BlogService, webhooks: WebhookService };

/** The issuer table of every service (its src/transport/issuers.policy.ts): method localName → issuers allowed. */
const ISSUER_TABLES: Record<string, Readonly<Record<string, readonly string[]>>> = { users: USERS_ISSUERS, stories: STORIES_ISSUERS, bookshelves: BOOKSHELVES_ISSUERS, messaging: MESSAGING_ISSUERS, blog: BLOG_ISSUERS, webhooks: WEBHOOKS_ISSUERS };

/** Caller metadata as the gateway sent it before assertions: anyone could write it. */
function forgedMetadata(): Metadata {
  const metadata = new Metadata();
  metadata.set('x-request-id', 'forged');
  metadata.set('x-inkwell-user-id', '1');
  metadata.set('x-inkwell-app-id', '1');
  metadata.set('x-inkwell-scopes', 'read_user write_user read_stories write_stories read_pms write_pms read_bookshelves write_bookshelves write_blog_posts');
  return metadata;
}


/**
 * For every unary RPC of the service `name` at `address`, the issuers of `keys` whose validly signed
 * call (empty request, a caller with a user) is refused for who they are: PERMISSION_DENIED naming
 * the issuer, before the handler runs. Other answers (the handler's own refusals of an empty
 * request) mean the issuer got through.
 */
async function issuersRefused(name: string, address: string, keys: KeyRing): Promise<Record<string, string[]>> {
  const service = DESCRIPTORS[name];
  if (service === undefined) throw new Error(`no descriptor for ${name}`);
  const refused: Record<string, string[]> = {};
  for (const issuer of ISSUERS) {
    const client = createGrpcClient(service, address, keys.clientOptions(issuer)) as unknown as Record<string, (request: object, options: object) => Promise<unknown>>;
    try {
      for (const method of service.methods.filter((candidate) => candidate.methodKind === 'unary')) {
        const outcome = await client[method.localName]!({}, { caller: { requestId: 'issuer-check', userId: '1', scopes: [] } }).then(
          () => undefined,
          (error: unknown) => error as { code?: string; message?: string },
        );
        const byIssuer = outcome?.code === 'PERMISSION_DENIED' && outcome.message === `Issuer "${issuer}" may not call /${service.typeName}/${method.name}.`;
        refused[method.localName] ??= [];
        if (byIssuer) refused[method.localName]!.push(issuer);
      }
    } finally {
      (client as unknown as { close(): void }).close();
    }
  }
  return refused;
}

/** The code of every unary RPC of the service at `address`, each called with an empty request and forged metadata. */
async function callEveryRpc(name: string, address: string, options: GrpcClientOptions): Promise<Record<string, string>> {
  const service = DESCRIPTORS[name];
  if (service === undefined) throw new Error(`no descriptor for ${name}`);
  const client = createGrpcClient(service, address, options) as unknown as Record<string, (request: object, options: object) => Promise<unknown>>;
  try {
    const codes: Record<string, string> = {};
    for (const method of service.methods.filter((candidate) => candidate.methodKind === 'unary')) {
      codes[method.name] = await callCode(client[method.localName]!({}, { metadata: forgedMetadata() }));
    }
    return codes;
  } finally {
    (client as unknown as { close(): void }).close();
  }
}

describe('internal calls of a running system (docs/api/foundation.md, "Internal calls")', () => {
  let system: RunningSystem;

  beforeAll(async () => {
    const stack = stackEnv();
    const databaseUrl = await ensureDatabase(stack.databaseUrl, 'inkwell_test_internal_auth');
    await dropSchemas(databaseUrl, SERVICES.map((service) => service.name));
    system = await startSystem({ stack: { ...stack, databaseUrl }, ports: 'free', seedDemoData: false, env: { LOG_LEVEL: 'error' } });
  }, 240_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('knows a descriptor for every service the system starts', () => {
    expect(Object.keys(DESCRIPTORS).sort()).toEqual(SERVICES.map((service) => service.name).sort());
  });

  it.each(SERVICES.map((service) => service.name))('%s answers every RPC with UNAUTHENTICATED to a caller without the gateway key, forged caller metadata or not', async (name) => {
    const address = system.addresses[name] ?? '';
    const expected = (codes: Record<string, string>) => Object.fromEntries(Object.keys(codes).map((method) => [method, 'UNAUTHENTICATED']));

    const unsigned = await callEveryRpc(name, address, {});
    const ownKey = await callEveryRpc(name, address, KeyRing.generate(['gateway']).clientOptions('gateway'));

    expect(Object.keys(unsigned).length).toBeGreaterThan(0);
    expect(unsigned).toEqual(expected(unsigned));
    expect(ownKey).toEqual(expected(ownKey));
  });

  it.each(SERVICES.map((service) => service.name))('%s refuses every issuer its table does not list with PERMISSION_DENIED, and lets every listed one through', async (name) => {
    const table = ISSUER_TABLES[name];
    if (table === undefined) throw new Error(`${name} has no issuer table here: add services/${name}/src/transport/issuers.policy.ts to ISSUER_TABLES`);
    const expected = Object.fromEntries(Object.entries(table).map(([method, allowed]) => [method, ISSUERS.filter((issuer) => !allowed.includes(issuer))]));

    const refused = await issuersRefused(name, system.addresses[name] ?? '', system.keys);

    expect(refused).toEqual(expected);
  });

  it.each(SERVICES.map((service) => service.name))('%s still answers health checks, which carry no assertion', async (name) => {
    const client = createGrpcClient(DESCRIPTORS[name]!, system.addresses[name] ?? '');
    try {
      expect(await client.checkHealth()).toBe(true);
      expect(await client.checkHealth(DESCRIPTORS[name]!.typeName)).toBe(true);
    } finally {
      client.close();
    }
  });

  it('accepts the same calls signed with the gateway key of the system', async () => {
    const user = await createTestUser(system, { scopes: ['read_user'] });
    const users = createGrpcClient(UsersService, system.addresses.users ?? '', system.keys.clientOptions('gateway'));
    try {
      const { user: found } = await users.getUser({ id: user.id }, { caller: { requestId: 'check', scopes: [] } });
      expect(found?.name).toBe(user.name);
    } finally {
      users.close();
    }
  });
});

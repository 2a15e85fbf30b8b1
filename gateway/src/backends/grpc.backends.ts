import { createGrpcClient, createInternalAuth, type GrpcClient } from '@inkwell/grpc';
import { BlogService } from '@inkwell/proto/blog';
import { BookshelvesService } from '@inkwell/proto/bookshelves';
import { MessagingService } from '@inkwell/proto/messaging';
import { StoriesService } from '@inkwell/proto/stories';
import { UsersService } from '@inkwell/proto/users';
import type { GatewayConfig } from '../config.js';

/** One gRPC client (one channel) per backend, shared by every request. */
export interface GrpcBackends {
  readonly users: GrpcClient<typeof UsersService>;
  readonly messaging: GrpcClient<typeof MessagingService>;
  readonly blog: GrpcClient<typeof BlogService>;
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly bookshelves: GrpcClient<typeof BookshelvesService>;
}

/**
 * Creates the clients of every configured backend, each signing every call with the gateway's
 * key (docs/api/foundation.md, "Internal calls"). Connecting is lazy: a backend that is down
 * fails calls and readiness, not startup.
 */
export function createGrpcBackends(config: GatewayConfig): GrpcBackends {
  const options = { defaultDeadlineMs: config.grpcDeadlineMs, signer: createInternalAuth('gateway', config.internalAuth).signer };
  return {
    users: createGrpcClient(UsersService, config.backends.users, options),
    // A page of private messages may carry up to 16 MiB of text (the service's budget); grpc-js would refuse over 4 MiB.
    messaging: createGrpcClient(MessagingService, config.backends.messaging, { ...options, channelOptions: { 'grpc.max_receive_message_length': 32 * 1024 * 1024 } }),
    // A post's content (1 MiB) renders to up to ~5 MiB of HTML, and a list page with content carries up to 16 MiB.
    blog: createGrpcClient(BlogService, config.backends.blog, { ...options, channelOptions: { 'grpc.max_receive_message_length': 32 * 1024 * 1024 } }),
    // A chapter's content (1 MiB) with its HTML can pass grpc-js's 4 MiB default.
    stories: createGrpcClient(StoriesService, config.backends.stories, { ...options, channelOptions: { 'grpc.max_receive_message_length': 32 * 1024 * 1024 } }),
    // A page of shelves carries up to 100 descriptions of up to 1 MiB each.
    bookshelves: createGrpcClient(BookshelvesService, config.backends.bookshelves, { ...options, channelOptions: { 'grpc.max_receive_message_length': 128 * 1024 * 1024 } }),
  };
}

/** Closes every channel (at shutdown). */
export function closeGrpcBackends(backends: GrpcBackends): void {
  for (const client of Object.values(backends)) client.close();
}

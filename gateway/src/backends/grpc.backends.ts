import { createGrpcClient, createInternalAuth, type GrpcClient } from '@inkwell/grpc';
import { BlogService } from '@inkwell/proto/blog';
import { BookshelvesService } from '@inkwell/proto/bookshelves';
import { MessagingService, NotificationService } from '@inkwell/proto/messaging';
import { StoriesService } from '@inkwell/proto/stories';
import { ModerationService, RelationsService, UsersService } from '@inkwell/proto/users';
import { WebhookService } from '@inkwell/proto/webhooks';
import type { GatewayConfig } from '../config.js';

/** One gRPC client (one channel) per backend, shared by every request. */
export interface GrpcBackends {
  readonly users: GrpcClient<typeof UsersService>;
  readonly messaging: GrpcClient<typeof MessagingService>;
  /** The notifications inbox, a second service of the messaging process (docs/api/updates.md, "Notifications"). */
  readonly notifications: GrpcClient<typeof NotificationService>;
  readonly blog: GrpcClient<typeof BlogService>;
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly bookshelves: GrpcClient<typeof BookshelvesService>;
  /** Apps' webhook endpoints and their delivery logs (docs/api/webhooks.md). */
  readonly webhooks: GrpcClient<typeof WebhookService>;
  /** Reports (docs/api/safety.md, "Reports and moderation"), a second service of the users process. */
  readonly moderation: GrpcClient<typeof ModerationService>;
  /** Blocks and mutes (docs/api/safety.md, "Blocking" and "Muting"), a second service of the users process. */
  readonly relations: GrpcClient<typeof RelationsService>;
}

/**
 * The backend process behind each client (the dependency the gateway checks, docs/api/foundation.md,
 * "Readiness and backend outages"): every client is its own service's, except the notifications
 * inbox, which the messaging service serves.
 */
export const BACKEND_OF: Readonly<Record<keyof GrpcBackends, string>> = {
  users: 'users',
  messaging: 'messaging',
  notifications: 'messaging',
  blog: 'blog',
  stories: 'stories',
  bookshelves: 'bookshelves',
  webhooks: 'webhooks',
  moderation: 'users',
  relations: 'users',
};

/**
 * Largest answer the gateway takes from a backend. Every answer is bounded by its service's byte
 * budget (docs/api/foundation.md, "Byte budgets": at most 16 MiB of text in a page with content,
 * 4 MiB in a batch, one item of up to ~3 MiB alone), so this is room to spare, never a limit a
 * caller can reach; grpc-js's default of 4 MiB would refuse a single large chapter.
 */
const BACKEND_ANSWER_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Creates the clients of every configured backend, each signing every call with the gateway's
 * key, over TLS when configured (docs/api/foundation.md, "Internal calls"). Connecting is lazy: a
 * backend that is down fails calls and readiness, not startup.
 */
export function createGrpcBackends(config: GatewayConfig): GrpcBackends {
  const options = {
    defaultDeadlineMs: config.grpcDeadlineMs,
    signer: createInternalAuth('gateway', config.internalAuth).signer,
    tls: config.grpcTls,
    channelOptions: { 'grpc.max_receive_message_length': BACKEND_ANSWER_MAX_BYTES },
  };
  return {
    users: createGrpcClient(UsersService, config.backends.users, options),
    messaging: createGrpcClient(MessagingService, config.backends.messaging, options),
    notifications: createGrpcClient(NotificationService, config.backends.messaging, options),
    blog: createGrpcClient(BlogService, config.backends.blog, options),
    stories: createGrpcClient(StoriesService, config.backends.stories, options),
    bookshelves: createGrpcClient(BookshelvesService, config.backends.bookshelves, options),
    webhooks: createGrpcClient(WebhookService, config.backends.webhooks, options),
    moderation: createGrpcClient(ModerationService, config.backends.users, options),
    relations: createGrpcClient(RelationsService, config.backends.users, options),
  };
}

/** Closes every channel (at shutdown). */
export function closeGrpcBackends(backends: GrpcBackends): void {
  for (const client of Object.values(backends)) client.close();
}

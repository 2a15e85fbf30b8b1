import { createGrpcServer, type AssertionVerifier, type GrpcServer, type MetricsRegistry } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { MessagingService, NotificationService as NotificationRpcs } from '@inkwell/proto/messaging';
import type { NotificationService } from './services/notification.service.js';
import type { PrivateMessageService } from './services/private-message.service.js';
import { MESSAGING_ISSUERS, NOTIFICATION_ISSUERS } from './transport/issuers.policy.js';
import { notificationHandlers } from './transport/notification.handlers.js';
import { privateMessageHandlers } from './transport/private-message.handlers.js';

/** What the messaging gRPC server needs, already constructed. */
export interface MessagingServerDeps {
  /** Where the server records the RED metrics of its calls (main.ts serves them on /metrics); none in most tests. */
  metrics?: MetricsRegistry | undefined;
  logger: Logger;
  /** Verifies each call's caller assertion (createInternalAuth('messaging', …).verifier in main.ts). */
  verifier: AssertionVerifier;
  messages: PrivateMessageService;
  notifications: NotificationService;
}

/**
 * Builds the messaging gRPC server (MessagingService, NotificationService + health) without
 * listening: tests start it on port 0. Each RPC accepts only the issuers of MESSAGING_ISSUERS and
 * NOTIFICATION_ISSUERS.
 */
export function createMessagingServer(deps: MessagingServerDeps): GrpcServer {
  return createGrpcServer({ logger: deps.logger, verifier: deps.verifier, metrics: deps.metrics })
    .add(MessagingService, privateMessageHandlers(deps.messages), { issuers: MESSAGING_ISSUERS })
    .add(NotificationRpcs, notificationHandlers(deps.notifications), { issuers: NOTIFICATION_ISSUERS });
}

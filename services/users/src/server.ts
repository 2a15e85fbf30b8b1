import { createGrpcServer, type AssertionVerifier, type GrpcServer, type MetricsRegistry } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { ModerationService, RelationsService, UsersService } from '@inkwell/proto/users';
import type { UsersServices } from './services.js';
import { accountHandlers } from './transport/account.handlers.js';
import { authorizationHandlers } from './transport/authorization.handlers.js';
import { followHandlers } from './transport/follow.handlers.js';
import { MODERATION_ISSUERS, moderationHandlers } from './transport/moderation.handlers.js';
import { USERS_ISSUERS } from './transport/issuers.policy.js';
import { oauthHandlers } from './transport/oauth.handlers.js';
import { personalTokenHandlers } from './transport/personal-token.handlers.js';
import { RELATIONS_ISSUERS, relationHandlers } from './transport/relation.handlers.js';

/** What the users gRPC server needs, already constructed. */
export interface UsersServerDeps {
  /** Where the server records the RED metrics of its calls (main.ts serves them on /metrics); none in most tests. */
  metrics?: MetricsRegistry | undefined;
  logger: Logger;
  services: UsersServices;
  /** Verifies each call's caller assertion (createInternalAuth('users', …).verifier in main.ts). */
  verifier: AssertionVerifier;
}

/**
 * Builds the users gRPC server (UsersService, RelationsService, ModerationService + health) without listening: tests start it on port 0.
 * Each RPC accepts only the issuers of USERS_ISSUERS.
 */
export function createUsersServer({ logger, services, verifier, metrics }: UsersServerDeps): GrpcServer {
  return createGrpcServer({ logger, verifier, metrics }).add(UsersService, {
    ...accountHandlers(services.accounts),
    ...followHandlers(services.follows),
    ...oauthHandlers(services.clients, services.tokens),
    ...personalTokenHandlers(services.personalTokens),
    ...authorizationHandlers(services.authorizations),
  }, { issuers: USERS_ISSUERS })
    .add(RelationsService, relationHandlers(services.relations), { issuers: RELATIONS_ISSUERS })
    .add(ModerationService, moderationHandlers(services.moderation), { issuers: MODERATION_ISSUERS });
}

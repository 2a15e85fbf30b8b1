import { createGrpcServer, type GrpcServer } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { UsersService } from '@inkwell/proto/users';
import type { UsersServices } from './services.js';
import { accountHandlers } from './transport/account.handlers.js';
import { followHandlers } from './transport/follow.handlers.js';
import { oauthHandlers } from './transport/oauth.handlers.js';
import { personalTokenHandlers } from './transport/personal-token.handlers.js';

/** What the users gRPC server needs, already constructed. */
export interface UsersServerDeps {
  logger: Logger;
  services: UsersServices;
}

/** Builds the users gRPC server (UsersService + health) without listening: tests start it on port 0. */
export function createUsersServer({ logger, services }: UsersServerDeps): GrpcServer {
  return createGrpcServer({ logger }).add(UsersService, {
    ...accountHandlers(services.accounts),
    ...followHandlers(services.follows),
    ...oauthHandlers(services.clients, services.tokens),
    ...personalTokenHandlers(services.personalTokens),
  });
}

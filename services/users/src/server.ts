import { createGrpcServer, type GrpcServer } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { UsersService } from '@inkwell/proto/users';
import type { UserService } from './services/user.service.js';
import { userHandlers } from './transport/user.handlers.js';

/** What the users gRPC server needs, already constructed. */
export interface UsersServerDeps {
  logger: Logger;
  users: UserService;
}

/** Builds the users gRPC server (UsersService + health) without listening: tests start it on port 0. */
export function createUsersServer(deps: UsersServerDeps): GrpcServer {
  return createGrpcServer({ logger: deps.logger }).add(UsersService, userHandlers(deps.users));
}

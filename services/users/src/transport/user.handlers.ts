import type { ServiceImpl } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import type { UserService } from '../services/user.service.js';
import { toProtoUser } from './user.mappers.js';

/** gRPC handlers of UsersService: decode → one service call → encode. */
export function userHandlers(users: UserService): ServiceImpl<typeof UsersService> {
  return {
    async getUser(request, ctx) {
      return { user: toProtoUser(await users.getUser(request.id, ctx.caller)) };
    },
  };
}

import type { HandlerContext, ServiceImpl } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import { SignInLockedError, type AccountService } from '../services/account.service.js';
import { toProtoUser } from './user.mappers.js';

type AccountHandlers = Pick<ServiceImpl<typeof UsersService>, 'getUser' | 'batchGetUsers' | 'registerUser' | 'authenticate' | 'updateUser'>;

/** gRPC handlers of the account RPCs: decode → one service call → encode; no rules. */
export function accountHandlers(accounts: AccountService): AccountHandlers {
  return {
    async getUser(request, ctx) {
      return { user: toProtoUser(await accounts.getUser(request.id, ctx.caller)) };
    },
    async batchGetUsers(request, ctx) {
      const page = await accounts.getUsers(request.ids, ctx.caller);
      return { users: page.items.map(toProtoUser), deferredIds: page.deferred };
    },
    async registerUser(request) {
      return { user: toProtoUser(await accounts.register({ name: request.name, email: request.email, password: request.password })) };
    },
    async authenticate(request, ctx) {
      return { user: toProtoUser(await withRetryAfter(ctx, () => accounts.authenticate(request.login, request.password, request.clientAddress))) };
    },
    async updateUser(request, ctx) {
      const changes = { ...(request.bio === undefined ? {} : { bio: request.bio }), ...(request.email === undefined ? {} : { email: request.email }) };
      return { user: toProtoUser(await accounts.updateProfile(ctx.caller, request.id, changes, ctx.signal)) };
    },
  };
}

/** Sends a sign-in lock's wait as the `retry-after` response header (seconds), like HTTP's Retry-After. */
async function withRetryAfter<T>(ctx: HandlerContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SignInLockedError) ctx.setResponseHeader('retry-after', String(error.retryAfterSeconds));
    throw error;
  }
}

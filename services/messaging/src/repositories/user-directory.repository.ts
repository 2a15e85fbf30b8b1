import { ErrorCode, isAppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';

/**
 * Asks the users service whether a user exists. The messaging service keeps no copy of the
 * users: a copy fed by events would lag behind registration, and a message to someone who
 * registered a moment ago must not be refused.
 */
export class UserDirectoryRepository {
  constructor(private readonly users: GrpcClient<typeof UsersService>) {}

  /**
   * True when user `id` exists, false when the users service says NOT_FOUND. Any other failure
   * (the users service is down: UNAVAILABLE) propagates, so that the request fails with 503
   * instead of a wrong 404.
   */
  async exists(id: string, caller: CallerContext): Promise<boolean> {
    try {
      const { user } = await this.users.getUser({ id }, { caller });
      return user !== undefined;
    } catch (error) {
      if (isAppError(error) && error.code === ErrorCode.NOT_FOUND) return false;
      throw error;
    }
  }
}

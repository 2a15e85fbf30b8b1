import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import type { GetRelationsResponse, RelationsService } from '@inkwell/proto/users';

/**
 * Asks the users service, the one source of truth of blocks and mutes (docs/api/safety.md), at
 * the moment of each action or read: no local copy, so a block counts from the instant it is
 * made. Failures (the users service is down: UNAVAILABLE) propagate, so that the request fails
 * instead of letting through what a block refuses.
 */
export class UserRelationsRepository {
  constructor(private readonly relations: GrpcClient<typeof RelationsService>) {}

  /** True when either user blocks the other. */
  async blockedEitherWay(userId: string, otherUserId: string, caller: CallerContext): Promise<boolean> {
    return (await this.relations.checkBlock({ userId, otherUserId }, { caller })).blocked;
  }

  /** What `userId` blocks and mutes (each set at most 1,000 long). */
  async relationsOf(userId: string, caller: CallerContext): Promise<GetRelationsResponse> {
    return this.relations.getRelations({ userId }, { caller });
  }
}

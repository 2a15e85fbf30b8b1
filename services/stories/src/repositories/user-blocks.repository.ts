import type { GrpcClient } from '@inkwell/grpc';
import type { RelationsService } from '@inkwell/proto/users';
import type { Viewer } from '../domain/story.js';

/**
 * Asks the users service, the one source of truth of blocks (docs/api/safety.md, "Blocking"),
 * whether either of two users blocks the other, at the moment of the action: no local copy, so a
 * block counts from the instant it is made. The call carries the request's id for the logs and no
 * user or scope (CheckBlock needs none). Failures propagate: the action fails rather than slip by.
 */
export class UserBlocksRepository {
  constructor(private readonly relations: GrpcClient<typeof RelationsService>) {}

  /** True when either user blocks the other. */
  async blockedEitherWay(userId: string, otherUserId: string, viewer: Viewer & { requestId?: string }): Promise<boolean> {
    const caller = { requestId: viewer.requestId ?? '', scopes: [] };
    return (await this.relations.checkBlock({ userId, otherUserId }, { caller })).blocked;
  }
}

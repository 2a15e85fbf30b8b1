import { AppError, ErrorCode } from '@inkwell/errors';
import { decodeFollowPosition, DEFAULT_FOLLOW_PAGE_SIZE, encodeFollowPosition, type Follow, type FollowDirection } from '../domain/follow.js';
import { isUserId, type Viewer } from '../domain/user.js';
import type { FollowRepository } from '../repositories/follow.repository.js';
import type { UserLookup } from '../repositories/user.repository.js';

/** What the follow rules read and write of follows: FollowRepository, or a memory store in unit tests. */
export type FollowStore = Pick<FollowRepository, 'follow' | 'unfollow' | 'list'>;

/** One page of follows; `nextAfter` is absent on the last page. */
export interface FollowList {
  follows: Follow[];
  nextAfter?: string;
}

const FOLLOWED_POINTER = '/data/relationships/followed';

/**
 * The rules about follows (POST /users/:id/following, DELETE …/:following_id;
 * docs/api/accounts.md, "Follows"): only the follower themself may follow or unfollow; following twice is a
 * conflict; following yourself or a user that does not exist fails validation on the `followed`
 * relationship; following someone who blocks you, or whom you block, is forbidden (docs/api/safety.md,
 * "Blocking"). Counts and events are kept exact by the repository (see FollowRepository).
 */
export class FollowService {
  constructor(
    private readonly follows: FollowStore,
    private readonly users: UserLookup,
  ) {}

  /** `caller` (who must be `followerId`) follows `followedId`. */
  async follow(caller: Viewer, followerId: string, followedId: string): Promise<Follow> {
    requireSelf(caller, followerId, 'You can follow people only as yourself.');
    if (followedId === followerId) throw AppError.validation(FOLLOWED_POINTER, 'You cannot follow yourself.');
    if (!isUserId(followedId)) throw noSuchUser();
    const outcome = await this.follows.follow(followerId, followedId);
    if ('follow' in outcome) return outcome.follow;
    if ('blocked' in outcome) throw AppError.forbidden('You cannot follow this user.');
    if (outcome.missing === 'followed') throw noSuchUser();
    throw AppError.notFound('user');
  }

  /** `caller` (who must be `followerId`) stops following `followedId`; NOT_FOUND when not following. */
  async unfollow(caller: Viewer, followerId: string, followedId: string): Promise<Follow> {
    requireSelf(caller, followerId, 'You can unfollow people only as yourself.');
    const removed = isUserId(followedId) ? await this.follows.unfollow(followerId, followedId) : undefined;
    if (!removed) {
      throw new AppError(ErrorCode.NOT_FOUND, 'You do not follow this user.', { details: [{ reason: 'not_found', detail: 'You do not follow this user.' }] });
    }
    return removed;
  }

  /**
   * One page of `userId`'s follows in `direction`, oldest first (ties by id). `pageSize` 0 means
   * the default (20); its bound is ListFollowsRequest's rule. `after` is the `nextAfter` of the
   * previous page; anything else is `invalid_cursor`. NOT_FOUND for an unknown user.
   */
  async list(userId: string, direction: FollowDirection, pageSize: number, after: string): Promise<FollowList> {
    const position = after === '' ? undefined : decodeFollowPosition(after);
    if (after !== '' && position === undefined) throw AppError.badParameter('page[cursor]', 'This cursor is not valid.', 'invalid_cursor');
    if (!isUserId(userId) || !(await this.users.findById(userId))) throw AppError.notFound('user');
    const page = await this.follows.list(userId, direction, pageSize === 0 ? DEFAULT_FOLLOW_PAGE_SIZE : pageSize, position);
    return { follows: page.follows, ...(page.next === undefined ? {} : { nextAfter: encodeFollowPosition(page.next) }) };
  }
}

function requireSelf(caller: Viewer, followerId: string, message: string): void {
  if (caller.userId === undefined || caller.userId !== followerId) throw AppError.forbidden(message);
}

/** A relationship naming a missing resource is 422 (docs/api/foundation.md, "Errors"). */
function noSuchUser(): AppError {
  return AppError.validation(FOLLOWED_POINTER, 'There is no user with this id.');
}

import { AppError, ErrorCode } from '@inkwell/errors';
import {
  decodeRelationPosition,
  DEFAULT_RELATION_PAGE_SIZE,
  encodeRelationPosition,
  MAX_BLOCKS,
  MAX_MUTES,
  type Block,
  type Mute,
  type MuteTarget,
  type RelationPosition,
  type Relations,
} from '../domain/relations.js';
import { isUserId, type Viewer } from '../domain/user.js';
import type { RelationPage, RelationRepository } from '../repositories/relation.repository.js';
import type { RelationsChangeNotifier } from '../repositories/relations-change.notifier.js';
import { callerUserId } from './caller-user.guard.js';
import { limitReached } from './limit-reached.error.js';

/** One page of a relation list; `nextAfter` is absent on the last page. */
export interface RelationList<T> {
  items: T[];
  nextAfter?: string;
}

const BLOCKED_POINTER = '/data/relationships/blocked';
const MUTED_POINTER = '/data/relationships/muted';
const NO_USER = 'You can block and mute only as a signed-in user.';

/**
 * The rules of blocks and mutes (docs/api/safety.md, "Blocking" and "Muting"): a user blocks and
 * mutes only as themself, never themself, only users that exist (a mute's tag id is taken as
 * given); a second block or mute of the same target is a conflict; each list is capped. The
 * checks other services make (CheckBlock) and the sets their read-time filters use
 * (GetRelations) come from here too. Each change is announced (`changed`) before it is answered,
 * so that copies of the sets kept elsewhere stop being served at once.
 */
export class RelationService {
  constructor(
    private readonly relations: RelationRepository,
    private readonly changes: RelationsChangeNotifier,
  ) {}

  /** The caller blocks `blockedId`; every follow between them ends. */
  async block(caller: Viewer, blockedId: string): Promise<Block> {
    const blockerId = callerUserId(caller, NO_USER);
    if (blockedId === blockerId) throw AppError.validation(BLOCKED_POINTER, 'You cannot block yourself.');
    if (!isUserId(blockedId)) throw AppError.validation(BLOCKED_POINTER, 'There is no user with this id.');
    const outcome = await this.relations.block(blockerId, blockedId, MAX_BLOCKS);
    if ('created' in outcome) return this.#announced(blockerId, outcome.created);
    if ('duplicate' in outcome) throw conflict(BLOCKED_POINTER, 'You already block this user.');
    if ('full' in outcome) throw limitReached(`You can block at most ${MAX_BLOCKS} users: unblock someone first.`);
    if (outcome.missing === 'target') throw AppError.validation(BLOCKED_POINTER, 'There is no user with this id.');
    throw AppError.notFound('user');
  }

  /** The caller stops blocking `blockedId`; NOT_FOUND when they did not. */
  async unblock(caller: Viewer, blockedId: string): Promise<Block> {
    const blockerId = callerUserId(caller, NO_USER);
    const removed = isUserId(blockedId) ? await this.relations.unblock(blockerId, blockedId) : undefined;
    if (!removed) throw notFound('You do not block this user.');
    return this.#announced(blockerId, removed);
  }

  /** One page of the caller's blocks, newest first. */
  async listBlocks(caller: Viewer, pageSize: number, after: string): Promise<RelationList<Block>> {
    const blockerId = callerUserId(caller, NO_USER);
    const page = await this.relations.listBlocks(blockerId, sizeOf(pageSize), positionOf('blocks', after));
    return listOf('blocks', page);
  }

  /** The caller mutes an author or a tag. */
  async mute(caller: Viewer, target: MuteTarget): Promise<Mute> {
    const muterId = callerUserId(caller, NO_USER);
    if ('authorId' in target) {
      if (target.authorId === muterId) throw AppError.validation(MUTED_POINTER, 'You cannot mute yourself.');
      if (!isUserId(target.authorId)) throw AppError.validation(MUTED_POINTER, 'There is no user with this id.');
    }
    const outcome = await this.relations.mute(muterId, target, MAX_MUTES);
    if ('created' in outcome) return this.#announced(muterId, outcome.created);
    if ('duplicate' in outcome) throw conflict(MUTED_POINTER, 'You already mute this.');
    if ('full' in outcome) throw limitReached(`You can mute at most ${MAX_MUTES} authors and tags: unmute some first.`);
    if (outcome.missing === 'target') throw AppError.validation(MUTED_POINTER, 'There is no user with this id.');
    throw AppError.notFound('user');
  }

  /** The caller removes their mute `muteId`; NOT_FOUND when they have no such mute. */
  async unmute(caller: Viewer, muteId: string): Promise<Mute> {
    const muterId = callerUserId(caller, NO_USER);
    const removed = isUserId(muteId) ? await this.relations.unmute(muterId, muteId) : undefined;
    if (!removed) throw notFound('You do not mute this.');
    return this.#announced(muterId, removed);
  }

  /** One page of the caller's mutes, newest first. */
  async listMutes(caller: Viewer, pageSize: number, after: string): Promise<RelationList<Mute>> {
    const muterId = callerUserId(caller, NO_USER);
    const page = await this.relations.listMutes(muterId, sizeOf(pageSize), positionOf('mutes', after));
    return listOf('mutes', page);
  }

  /** `change` of `userId`'s relations, once announced. */
  async #announced<T>(userId: string, change: T): Promise<T> {
    await this.changes.changed(userId);
    return change;
  }

  /** Whether either user blocks the other; false for ids that name nobody. */
  async blockedEitherWay(userId: string, otherUserId: string): Promise<boolean> {
    if (!isUserId(userId) || !isUserId(otherUserId) || userId === otherUserId) return false;
    return this.relations.blockedEitherWay(userId, otherUserId);
  }

  /** What `userId` blocks and mutes; empty sets for an id that names nobody. */
  async relationsOf(userId: string): Promise<Relations> {
    if (!isUserId(userId)) return { blockedUserIds: [], mutedAuthorIds: [], mutedTagIds: [] };
    return this.relations.relationsOf(userId);
  }
}

function sizeOf(pageSize: number): number {
  return pageSize === 0 ? DEFAULT_RELATION_PAGE_SIZE : pageSize;
}

function positionOf(list: 'blocks' | 'mutes', after: string): RelationPosition | undefined {
  if (after === '') return undefined;
  const position = decodeRelationPosition(list, after);
  if (position === undefined) throw AppError.badParameter('page[cursor]', 'This cursor is not valid.', 'invalid_cursor');
  return position;
}

function listOf<T>(list: 'blocks' | 'mutes', page: RelationPage<T>): RelationList<T> {
  return { items: page.items, ...(page.next === undefined ? {} : { nextAfter: encodeRelationPosition(list, page.next) }) };
}

function conflict(pointer: string, detail: string): AppError {
  return new AppError(ErrorCode.ALREADY_EXISTS, detail, { details: [{ reason: 'conflict', pointer, detail }] });
}

function notFound(detail: string): AppError {
  return new AppError(ErrorCode.NOT_FOUND, detail, { details: [{ reason: 'not_found', detail }] });
}

import { AppError } from '@inkwell/errors';
import { BATCH_ANSWER_MAX_BYTES, type BatchPage } from '@inkwell/limits';
import { READ_BOOKSHELVES, shelfAccess } from '@inkwell/shelf-access';
import { accessFacts, asSeenBy, isId, MAX_SHELVES_PER_USER, type Bookshelf, type Caller } from '../domain/bookshelf.js';
import { isEmptyChange, storedChanges, storedShelf, type NewShelfInput, type ShelfChanges } from '../domain/bookshelf-input.js';
import { decodePosition, encodePosition, pageSizeOf } from '../domain/page.js';
import type { BookshelfRepository } from '../repositories/bookshelf.repository.js';
import { ownedShelf, readableShelf, requireWriter, validationError } from './shelf-access.js';

/** What the shelf rules read and write of shelves: BookshelfRepository, or a memory store in unit tests. */
export type ShelfStore = Pick<BookshelfRepository, 'findById' | 'findByIds' | 'listByOwner' | 'create' | 'update' | 'delete'>;

/** A page request: size (0 = default) and the opaque position of the previous page ('' = first). */
export interface PageInput {
  pageSize: number;
  after: string;
}

/** One page of shelves and the position after it ('' on the last page). */
export interface ShelfPageResult {
  shelves: Bookshelf[];
  nextAfter: string;
}

/**
 * The rules about bookshelves (docs/api/bookshelves.md): who sees which shelf, validation and
 * limits, ownership of writes. num_unread is shown to the owner only.
 */
export class BookshelfService {
  constructor(private readonly shelves: ShelfStore) {}

  /** Shelf `id` as the caller may see it (see readableShelf). */
  async getBookshelf(id: string, caller: Caller): Promise<Bookshelf> {
    return asSeenBy(await readableShelf(this.shelves, id, caller), caller);
  }

  /**
   * The visible shelves among `ids` (at most 1000: BatchGetBookshelvesRequest's rule), in request order; others left out. The
   * answer stops within its byte budget and names the ids it did not read as `deferred`
   * (docs/api/foundation.md, "Byte budgets").
   */
  async batchGetBookshelves(ids: readonly string[], caller: Caller): Promise<BatchPage<Bookshelf>> {
    const wanted = [...new Set(ids.filter(isId))];
    const { shelves, covered } = await this.shelves.findByIds(wanted, BATCH_ANSWER_MAX_BYTES);
    return { items: shelves.filter((shelf) => shelfAccess(accessFacts(shelf), caller) === 'visible').map((shelf) => asSeenBy(shelf, caller)), deferred: wanted.slice(covered) };
  }

  /** One page of user `userId`'s shelves in their order; private ones only for the owner with read_bookshelves. */
  async listUserBookshelves(userId: string, page: PageInput, caller: Caller): Promise<ShelfPageResult> {
    const size = pageSizeOf(page.pageSize);
    const after = page.after === '' ? undefined : decodePosition('shelves', page.after);
    if (page.after !== '' && after === undefined) throw AppError.badParameter('page[cursor]', 'The cursor is not valid for this list.', 'invalid_cursor');
    if (!isId(userId)) return { shelves: [], nextAfter: '' };
    const includePrivate = caller.userId === userId && caller.scopes.includes(READ_BOOKSHELVES);
    const result = await this.shelves.listByOwner(userId, includePrivate, size, after);
    return { shelves: result.shelves.map((shelf) => asSeenBy(shelf, caller)), nextAfter: result.next ? encodePosition('shelves', result.next) : '' };
  }

  /**
   * A new shelf of the caller (its values valid by CreateBookshelfRequest's rules): `userId` must
   * be the caller (PERMISSION_DENIED forbidden), then the per-user cap (INVALID_ARGUMENT
   * validation_failed).
   */
  async createBookshelf(userId: string, input: NewShelfInput, caller: Caller): Promise<Bookshelf> {
    const ownerId = this.authorizeCreate(userId, caller);
    const created = await this.shelves.create({ ownerId, ...storedShelf(input) }, MAX_SHELVES_PER_USER);
    if (!created) throw validationError([{ pointer: '/data', detail: `A user can have at most ${MAX_SHELVES_PER_USER} bookshelves.` }]);
    return created;
  }

  /**
   * The owner of a new shelf for user `userId`: the caller, else PERMISSION_DENIED forbidden
   * (docs/api/bookshelves.md, "Visibility and scopes"). Reads nothing, changes nothing.
   */
  authorizeCreate(userId: string, caller: Caller): string {
    const ownerId = requireWriter(caller);
    if (userId !== ownerId) throw AppError.forbidden('Bookshelves can only be created for yourself.');
    return ownerId;
  }

  /**
   * Refuses a write to shelf `id` the caller does not own, as every shelf write does (see
   * ownedShelf: NOT_FOUND when it cannot see it, else PERMISSION_DENIED forbidden); changes nothing.
   */
  async authorizeChange(id: string, caller: Caller): Promise<void> {
    await ownedShelf(this.shelves, id, caller);
  }

  /** Changes the members that are set, after the ownership checks; an empty change writes nothing. */
  async updateBookshelf(id: string, changes: ShelfChanges, caller: Caller): Promise<Bookshelf> {
    const current = await ownedShelf(this.shelves, id, caller);
    const stored = storedChanges(changes);
    if (isEmptyChange(stored)) return current;
    const updated = await this.shelves.update(id, stored);
    if (!updated) throw AppError.notFound('bookshelf');
    return updated;
  }

  /** Deletes the shelf with its items, after the ownership checks. */
  async deleteBookshelf(id: string, caller: Caller): Promise<void> {
    await ownedShelf(this.shelves, id, caller);
    if (!(await this.shelves.delete(id))) throw AppError.notFound('bookshelf');
  }
}


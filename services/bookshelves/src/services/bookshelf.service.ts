import { AppError } from '@inkwell/errors';
import { BATCH_ANSWER_MAX_BYTES, type BatchPage } from '@inkwell/limits';
import { asSeenBy, isId, MAX_BATCH_IDS, MAX_SHELVES_PER_USER, READ_BOOKSHELVES, shelfAccess, type Bookshelf, type Caller } from '../domain/bookshelf.js';
import { isEmptyChange, validateNewShelf, validateShelfChanges, type NewShelfInput, type ShelfChanges } from '../domain/bookshelf-input.js';
import { decodePosition, encodePosition, pageSizeOf } from '../domain/page.js';
import type { BookshelfRepository } from '../repositories/bookshelf.repository.js';
import { ownedShelf, readableShelf, requireWriter, validationError } from './shelf-access.js';

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
  constructor(private readonly shelves: BookshelfRepository) {}

  /** Shelf `id` as the caller may see it (see readableShelf). */
  async getBookshelf(id: string, caller: Caller): Promise<Bookshelf> {
    return asSeenBy(await readableShelf(this.shelves, id, caller), caller);
  }

  /**
   * The visible shelves among `ids` (at most 1000), in request order; others left out. The
   * answer stops within its byte budget and names the ids it did not read as `deferred`
   * (docs/api/foundation.md, "Byte budgets").
   */
  async batchGetBookshelves(ids: readonly string[], caller: Caller): Promise<BatchPage<Bookshelf>> {
    if (ids.length > MAX_BATCH_IDS) throw AppError.badParameter('include', `At most ${MAX_BATCH_IDS} bookshelves can be asked for at once.`);
    const wanted = [...new Set(ids.filter(isId))];
    const { shelves, covered } = await this.shelves.findByIds(wanted, BATCH_ANSWER_MAX_BYTES);
    return { items: shelves.filter((shelf) => shelfAccess(shelf, caller) === 'visible').map((shelf) => asSeenBy(shelf, caller)), deferred: wanted.slice(covered) };
  }

  /** One page of user `userId`'s shelves in their order; private ones only for the owner with read_bookshelves. */
  async listUserBookshelves(userId: string, page: PageInput, caller: Caller): Promise<ShelfPageResult> {
    const size = pageSizeOf(page.pageSize);
    if (size === undefined) throw AppError.badParameter('page[size]', 'The page size must be between 1 and 100.');
    const after = page.after === '' ? undefined : decodePosition('shelves', page.after);
    if (page.after !== '' && after === undefined) throw AppError.badParameter('page[cursor]', 'The cursor is not valid for this list.', 'invalid_cursor');
    if (!isId(userId)) return { shelves: [], nextAfter: '' };
    const includePrivate = caller.userId === userId && caller.scopes.includes(READ_BOOKSHELVES);
    const result = await this.shelves.listByOwner(userId, includePrivate, size, after);
    return { shelves: result.shelves.map((shelf) => asSeenBy(shelf, caller)), nextAfter: result.next ? encodePosition('shelves', result.next) : '' };
  }

  /**
   * A new shelf of the caller: `userId` must be the caller (PERMISSION_DENIED forbidden), then
   * validation, then the per-user cap (INVALID_ARGUMENT validation_failed).
   */
  async createBookshelf(userId: string, input: NewShelfInput, caller: Caller): Promise<Bookshelf> {
    const ownerId = requireWriter(caller);
    if (userId !== ownerId) throw AppError.forbidden('Bookshelves can only be created for yourself.');
    const checked = validateNewShelf(input);
    if (!checked.ok) throw validationError(checked.problems);
    const created = await this.shelves.create({ ownerId, ...checked.value }, MAX_SHELVES_PER_USER);
    if (!created) throw validationError([{ pointer: '/data', detail: `A user can have at most ${MAX_SHELVES_PER_USER} bookshelves.` }]);
    return created;
  }

  /** Changes the members that are set, after the ownership checks; an empty change writes nothing. */
  async updateBookshelf(id: string, changes: ShelfChanges, caller: Caller): Promise<Bookshelf> {
    const current = await ownedShelf(this.shelves, id, caller);
    const checked = validateShelfChanges(changes);
    if (!checked.ok) throw validationError(checked.problems);
    if (isEmptyChange(checked.value)) return current;
    const updated = await this.shelves.update(id, checked.value);
    if (!updated) throw AppError.notFound('bookshelf');
    return updated;
  }

  /** Deletes the shelf with its items, after the ownership checks. */
  async deleteBookshelf(id: string, caller: Caller): Promise<void> {
    await ownedShelf(this.shelves, id, caller);
    if (!(await this.shelves.delete(id))) throw AppError.notFound('bookshelf');
  }
}


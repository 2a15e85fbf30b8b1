import { AppError, ErrorCode } from '@inkwell/errors';
import { ownsShelf, READ_BOOKSHELVES, shelfAccess } from '@inkwell/shelf-access';
import { accessFacts, isId, type Bookshelf, type Caller } from '../domain/bookshelf.js';
import type { Problem } from '../domain/bookshelf-input.js';
import type { BookshelfRepository } from '../repositories/bookshelf.repository.js';

/** What the shelf access rules read of shelves: one by id (BookshelfRepository, or a memory store in unit tests). */
export type ShelfLookup = Pick<BookshelfRepository, 'findById'>;

/**
 * Shelf `id` for reading (docs/api/bookshelves.md, Visibility): NOT_FOUND when there is none
 * or it is someone else's private shelf; PERMISSION_DENIED insufficient_scope for one's own
 * private shelf without read_bookshelves.
 */
export async function readableShelf(shelves: ShelfLookup, id: string, caller: Caller): Promise<Bookshelf> {
  const shelf = isId(id) ? await shelves.findById(id) : undefined;
  if (!shelf) throw AppError.notFound('bookshelf');
  const access = shelfAccess(accessFacts(shelf), caller);
  if (access === 'hidden') throw AppError.notFound('bookshelf');
  if (access === 'needs_scope') throw AppError.insufficientScope(READ_BOOKSHELVES);
  return shelf;
}

/**
 * Shelf `id` for writing: the caller must be a user with write_bookshelves (see requireWriter)
 * and own it. Someone else's shelf the caller can see is PERMISSION_DENIED forbidden; one it
 * cannot see (missing, someone else's private) is NOT_FOUND. The owner writes its own private
 * shelves without read_bookshelves.
 */
export async function ownedShelf(shelves: ShelfLookup, id: string, caller: Caller): Promise<Bookshelf> {
  requireWriter(caller);
  const shelf = isId(id) ? await shelves.findById(id) : undefined;
  if (!shelf) throw AppError.notFound('bookshelf');
  if (ownsShelf(shelf, caller)) return shelf;
  if (shelfAccess(accessFacts(shelf), caller) === 'hidden') throw AppError.notFound('bookshelf');
  throw AppError.forbidden('Only the owner can change this bookshelf.');
}

/**
 * The writing user: every write RPC needs a signed-in user holding write_bookshelves, checked
 * before the service runs (their access option; docs/api/bookshelves.md, "Visibility").
 */
export function requireWriter(caller: Caller): string {
  if (caller.userId === undefined) throw new Error('Bookshelves are written only by a signed-in user.');
  return caller.userId;
}

/** INVALID_ARGUMENT validation_failed with one detail per problem. */
export function validationError(problems: readonly Problem[]): AppError {
  return new AppError(ErrorCode.INVALID_ARGUMENT, problems[0]?.detail ?? 'The request is not valid.', {
    details: problems.map((problem) => ({ reason: 'validation_failed', pointer: problem.pointer, detail: problem.detail })),
  });
}

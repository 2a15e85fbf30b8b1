import { AppError, ErrorCode } from '@inkwell/errors';
import { isId, isOwner, READ_BOOKSHELVES, shelfAccess, WRITE_BOOKSHELVES, type Bookshelf, type Caller } from '../domain/bookshelf.js';
import type { Problem } from '../domain/bookshelf-input.js';
import type { BookshelfRepository } from '../repositories/bookshelf.repository.js';

/**
 * Shelf `id` for reading (docs/api/bookshelves.md, Visibility): NOT_FOUND when there is none
 * or it is someone else's private shelf; PERMISSION_DENIED insufficient_scope for one's own
 * private shelf without read_bookshelves.
 */
export async function readableShelf(shelves: BookshelfRepository, id: string, caller: Caller): Promise<Bookshelf> {
  const shelf = isId(id) ? await shelves.findById(id) : undefined;
  if (!shelf) throw AppError.notFound('bookshelf');
  const access = shelfAccess(shelf, caller);
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
export async function ownedShelf(shelves: BookshelfRepository, id: string, caller: Caller): Promise<Bookshelf> {
  requireWriter(caller);
  const shelf = isId(id) ? await shelves.findById(id) : undefined;
  if (!shelf) throw AppError.notFound('bookshelf');
  if (isOwner(shelf, caller)) return shelf;
  if (shelfAccess(shelf, caller) === 'hidden') throw AppError.notFound('bookshelf');
  throw AppError.forbidden('Only the owner can change this bookshelf.');
}

/**
 * The caller's user id when it may write bookshelves: no caller at all is UNAUTHENTICATED, an
 * app-only token PERMISSION_DENIED forbidden, a user without write_bookshelves
 * PERMISSION_DENIED insufficient_scope.
 */
export function requireWriter(caller: Caller): string {
  if (caller.userId === undefined) {
    if (caller.appId === undefined) throw new AppError(ErrorCode.UNAUTHENTICATED, 'Writing bookshelves needs a signed-in user.', { details: [{ reason: 'invalid_token' }] });
    throw AppError.forbidden('An app-only token cannot write bookshelves.');
  }
  if (!caller.scopes.includes(WRITE_BOOKSHELVES)) throw AppError.insufficientScope(WRITE_BOOKSHELVES);
  return caller.userId;
}

/** INVALID_ARGUMENT validation_failed with one detail per problem. */
export function validationError(problems: readonly Problem[]): AppError {
  return new AppError(ErrorCode.INVALID_ARGUMENT, problems[0]?.detail ?? 'The request is not valid.', {
    details: problems.map((problem) => ({ reason: 'validation_failed', pointer: problem.pointer, detail: problem.detail })),
  });
}

import type { Viewer } from './story.js';

/** The scope that reveals one's own private bookshelves (docs/api/stories.md, "Bookshelves in story lists"). */
export const READ_BOOKSHELVES = 'read_bookshelves';

/** A bookshelf as the stories service copies it from the bookshelves events. */
export interface ShelfSnapshot {
  id: string;
  ownerId: string;
  private: boolean;
  dateModified: Date;
}

/** A bookshelf item as the stories service copies it from the bookshelves events. */
export interface ShelfItemSnapshot {
  /** The item id: a story added again after removal gets a new one. */
  id: string;
  bookshelfId: string;
  storyId: string;
  read: boolean;
  dateAdded: Date;
}

/** The copy's knowledge of a shelf that a list may filter by; undefined when unknown or deleted. */
export interface ShelfAccessFacts {
  ownerId: string;
  private: boolean;
}

/**
 * How a viewer may use a shelf in `filter[bookshelf]` (docs/api/stories.md, "Bookshelves in story lists"):
 * - `visible`: a public shelf (any caller, app-only included), or one's own private shelf with read_bookshelves;
 * - `needs_scope`: one's own private shelf without read_bookshelves (PERMISSION_DENIED insufficient_scope);
 * - `hidden`: no such shelf, or another user's private one: it matches nothing, exactly like a
 *   shelf that does not exist, so a list never reveals whether a private shelf exists.
 */
export type ShelfAccess = 'visible' | 'needs_scope' | 'hidden';

/** Applies the rules of {@link ShelfAccess} to `shelf` (undefined: unknown or deleted). */
export function shelfAccess(shelf: ShelfAccessFacts | undefined, viewer: Viewer): ShelfAccess {
  if (!shelf) return 'hidden';
  if (!shelf.private) return 'visible';
  if (!ownsShelf(shelf, viewer)) return 'hidden';
  return viewer.scopes.includes(READ_BOOKSHELVES) ? 'visible' : 'needs_scope';
}

/** True when `viewer` is the signed-in owner of `shelf` (never for app-only callers or unknown shelves). */
export function ownsShelf(shelf: ShelfAccessFacts | undefined, viewer: Viewer): boolean {
  return shelf !== undefined && viewer.userId !== undefined && shelf.ownerId === viewer.userId;
}

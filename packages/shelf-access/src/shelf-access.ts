/** The scope that reveals one's own private bookshelves (docs/api/bookshelves.md, docs/api/stories.md, "Bookshelves in story lists"). */
export const READ_BOOKSHELVES = 'read_bookshelves';

/** What the access rules read of a shelf: its owner and whether it is private. */
export interface ShelfAccessFacts {
  ownerId: string;
  private: boolean;
}

/** Who is asking, as far as the access rules care (structurally a gRPC CallerContext). */
export interface ShelfViewer {
  readonly userId?: string;
  readonly scopes: readonly string[];
}

/**
 * How a viewer may see a shelf, in the bookshelves service and in `filter[bookshelf]` of story
 * lists alike (docs/api/bookshelves.md, "Visibility and scopes"; docs/api/stories.md, "Bookshelves in story lists"):
 * - `visible`: a public shelf (any caller, app-only included), or one's own private shelf with read_bookshelves;
 * - `needs_scope`: one's own private shelf without read_bookshelves (PERMISSION_DENIED insufficient_scope);
 * - `hidden`: no such shelf, or another user's private one: answered exactly like a shelf that
 *   does not exist, so nobody learns whether someone else's private shelf exists.
 */
export type ShelfAccess = 'visible' | 'needs_scope' | 'hidden';

/** Applies the rules of {@link ShelfAccess} to `shelf` (undefined: unknown or deleted). */
export function shelfAccess(shelf: ShelfAccessFacts | undefined, viewer: ShelfViewer): ShelfAccess {
  if (!shelf) return 'hidden';
  if (!shelf.private) return 'visible';
  if (!ownsShelf(shelf, viewer)) return 'hidden';
  return viewer.scopes.includes(READ_BOOKSHELVES) ? 'visible' : 'needs_scope';
}

/** True when `viewer` is the signed-in owner of `shelf` (never for app-only callers or unknown shelves). */
export function ownsShelf(shelf: Pick<ShelfAccessFacts, 'ownerId'> | undefined, viewer: ShelfViewer): boolean {
  return shelf !== undefined && viewer.userId !== undefined && shelf.ownerId === viewer.userId;
}

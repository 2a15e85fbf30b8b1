import { ownsShelf, type ShelfAccessFacts } from '@inkwell/shelf-access';

/** Who may see a shelf and its items (docs/api/bookshelves.md). */
export type Privacy = 'public' | 'private';

/** A bookshelf as the service knows it. */
export interface Bookshelf {
  id: string;
  ownerId: string;
  name: string;
  /** Plain text, possibly empty. */
  description: string;
  privacy: Privacy;
  /** `#rrggbb`, lower case. */
  color: string;
  /** The owner's ordering of their shelves; lower first, ties by id. */
  order: number;
  /** Items whose story is published. */
  numStories: number;
  /** Of those, the unread ones; set only when the caller is the owner. */
  numUnread?: number;
  dateCreated: Date;
  dateModified: Date;
}

/** A story on a shelf. */
export interface BookshelfItem {
  id: string;
  bookshelfId: string;
  /** The shelf's owner (events carry it). */
  ownerId: string;
  storyId: string;
  read: boolean;
  dateAdded: Date;
}

/** Who is asking, as far as the bookshelf rules care (structurally a gRPC CallerContext). */
export interface Caller {
  readonly userId?: string;
  readonly appId?: string;
  readonly scopes: readonly string[];
}

/** Items of one's own unpublished stories are listed only with this scope. */
export const READ_STORIES = 'read_stories';

/** The colour of a shelf created without one. */
export const DEFAULT_COLOR = '#3366cc';
/** The privacy of a shelf created without one. */
export const DEFAULT_PRIVACY: Privacy = 'private';
/** Most shelves one user may own. */
export const MAX_SHELVES_PER_USER = 1_000;
/** Most items one shelf may hold (whatever their stories' state). */
export const MAX_ITEMS_PER_SHELF = 100_000;

/** What the shared shelf access rules (@inkwell/shelf-access) read of a shelf. */
export function accessFacts(shelf: Pick<Bookshelf, 'ownerId' | 'privacy'>): ShelfAccessFacts {
  return { ownerId: shelf.ownerId, private: shelf.privacy !== 'public' };
}

/**
 * The author whose unpublished stories the caller may see listed on shelves: the caller itself
 * when it holds read_stories, otherwise nobody (undefined).
 */
export function unpublishedVisibleFor(caller: Caller): string | undefined {
  return caller.userId !== undefined && caller.scopes.includes(READ_STORIES) ? caller.userId : undefined;
}

/** The shelf as `caller` sees it: num_unread only for the owner. */
export function asSeenBy(shelf: Bookshelf, caller: Caller): Bookshelf {
  if (ownsShelf(shelf, caller)) return shelf;
  const { numUnread: _hidden, ...rest } = shelf;
  return rest;
}

/** True when `id` is a positive integer that fits a Postgres bigint. */
export function isId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= 9223372036854775807n;
}

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

/** Reading one's own private shelves needs this scope. */
export const READ_BOOKSHELVES = 'read_bookshelves';
/** Every shelf and item write needs this scope. */
export const WRITE_BOOKSHELVES = 'write_bookshelves';
/** Items of one's own unpublished stories are listed only with this scope. */
export const READ_STORIES = 'read_stories';

/** The colour of a shelf created without one. */
export const DEFAULT_COLOR = '#3366cc';
/** The privacy of a shelf created without one. */
export const DEFAULT_PRIVACY: Privacy = 'private';
/** Longest name in characters (code points). */
export const MAX_NAME_LENGTH = 200;
/** Largest description in bytes of UTF-8 (1 MiB). */
export const MAX_DESCRIPTION_BYTES = 1024 * 1024;
/** Most shelves one user may own. */
export const MAX_SHELVES_PER_USER = 1_000;
/** Most items one shelf may hold (whatever their stories' state). */
export const MAX_ITEMS_PER_SHELF = 100_000;
/** Most ids one BatchGetBookshelves call may name. */
export const MAX_BATCH_IDS = 1_000;

/** What a caller may do with a shelf it asks for by id. */
export type ShelfAccess = 'visible' | 'hidden' | 'needs_scope';

/**
 * Public shelves are visible to every caller; a private one to its owner holding
 * read_bookshelves ('needs_scope' without it), and to nobody else ('hidden').
 */
export function shelfAccess(shelf: Pick<Bookshelf, 'ownerId' | 'privacy'>, caller: Caller): ShelfAccess {
  if (shelf.privacy === 'public') return 'visible';
  if (caller.userId !== shelf.ownerId) return 'hidden';
  return caller.scopes.includes(READ_BOOKSHELVES) ? 'visible' : 'needs_scope';
}

/** True when the caller is the shelf's owner. */
export function isOwner(shelf: Pick<Bookshelf, 'ownerId'>, caller: Caller): boolean {
  return caller.userId !== undefined && caller.userId === shelf.ownerId;
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
  if (isOwner(shelf, caller)) return shelf;
  const { numUnread: _hidden, ...rest } = shelf;
  return rest;
}

/** True when `id` is a positive integer that fits a Postgres bigint. */
export function isId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= 9223372036854775807n;
}

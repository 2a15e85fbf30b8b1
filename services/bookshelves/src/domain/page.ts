import { decodeCursor, encodeCursor } from '@inkwell/keyset';
import { isId } from './bookshelf.js';

/** Page size when none is asked for (0) (docs/api/bookshelves.md). */
export const DEFAULT_PAGE_SIZE = 20;

/** The two keyset-paginated lists: a user's shelves (by order, id) and a shelf's items (by date added, id). */
export type ListKind = 'shelves' | 'items';

/**
 * Where a page starts: the sort key and id of the last row of the previous page. The key is the
 * shelf's `order` for shelves and the item's date_added in milliseconds since the epoch for items.
 */
export interface Position {
  readonly key: number;
  readonly id: string;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
/** Dates the API can hold: ±8.64e15 ms is JavaScript's Date range. */
const MAX_MILLIS = 8_640_000_000_000_000;

/** The page size to use for `requested` (0 means the default; the bounds are the list requests' rules). */
export function pageSizeOf(requested: number): number {
  return requested === 0 ? DEFAULT_PAGE_SIZE : requested;
}

/** Encodes where the next page of a list starts as an opaque cursor (`@inkwell/keyset`) naming the list, so a position made for items is refused for shelves. */
export function encodePosition(kind: ListKind, position: Position): string {
  return encodeCursor(kind, [position.key, position.id]);
}

/** Decodes a position made by encodePosition for the same list; undefined for anything else. */
export function decodePosition(kind: ListKind, text: string): Position | undefined {
  const [key, id] = decodeCursor(kind, text, 2) ?? [];
  if (typeof key !== 'number' || !Number.isInteger(key)) return undefined;
  const inRange = kind === 'shelves' ? key >= INT32_MIN && key <= INT32_MAX : Math.abs(key) <= MAX_MILLIS;
  if (!inRange || typeof id !== 'string' || !isId(id)) return undefined;
  return { key, id };
}

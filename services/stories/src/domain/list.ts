import { decodeCursor, encodeCursor } from '@inkwell/keyset';

/** The sort fields of story lists (docs/api/stories.md, "GET /stories"); `relevance` needs a query, `date_added` a bookshelf. */
export type StorySortField =
  | 'date_published'
  | 'hotness'
  | 'date_modified'
  | 'rating'
  | 'num_words'
  | 'num_views'
  | 'num_comments'
  | 'relevance'
  | 'num_likes'
  | 'num_dislikes'
  | 'date_added'
  | 'date_updated';

/** Sort direction; ties are broken by id in the same direction (docs/api/lists.md, "Sorting"). */
export type SortDirection = 'asc' | 'desc';

/** One sort field with its direction. */
export interface Sort<Field extends string = StorySortField> {
  field: Field;
  direction: SortDirection;
}

/** The default sort of story lists (docs/api/lists.md, "Sorting"). */
export const DEFAULT_STORY_SORT: Sort = { field: 'date_published', direction: 'desc' };

/** The page size of a cursor list when the request leaves it at 0 (docs/api/lists.md, "Cursor pagination"). */
export const DEFAULT_PAGE_SIZE = 20;

/**
 * The page size to use for a requested one: 0 (unset) means the default. The request's rules
 * (`page_size`, at most 100; proto/inkwell/stories/v1/stories_service.proto) bound the rest
 * before the service sees it.
 */
export function pageLimit(requested: number): number {
  return requested === 0 ? DEFAULT_PAGE_SIZE : requested;
}

/** The ids of a batch lookup, each once, without those `isId` says cannot exist (they match nothing). */
export function lookupIds(ids: readonly string[], isId: (id: string) => boolean): string[] {
  return [...new Set(ids)].filter(isId);
}

/**
 * Where a keyset page starts: after the row whose sort value was `key` (its text form, as the
 * database printed it; null for a sort without a value column, such as catalogue order) and
 * whose tie-breaking id was `id` (the row's own id; for stories sorted by `date_added`, the id of
 * the bookshelf item, since one story has one item per shelf). `sort` names the sort that
 * produced it, so a position is never applied to a list in another order.
 */
export interface Position {
  sort: string;
  key: string | null;
  id: string;
}

/** Encodes a position as the opaque `after` string of the next page (`@inkwell/keyset`, naming the sort). */
export function encodePosition(position: Position): string {
  return encodeCursor(position.sort, [position.key, position.id]);
}

/**
 * Decodes an `after` string made by {@link encodePosition} for the sort `sort`; undefined when it
 * is malformed, was made for another sort, or its id is not one `isId` recognises (a story or
 * item id, a tag id: the list's own id syntax).
 */
export function decodePosition(after: string, sort: string, isId: (id: string) => boolean): Position | undefined {
  const fields = decodeCursor(sort, after, 2);
  if (fields === undefined) return undefined;
  const [key, id] = fields;
  if ((key !== null && typeof key !== 'string') || typeof id !== 'string') return undefined;
  if (!isId(id)) return undefined;
  if (key !== null && key.length > 200) return undefined;
  return { sort, key, id };
}

/** The name a sort goes by inside positions, e.g. `rating.desc`. */
export function sortName(sort: Sort<string>): string {
  return `${sort.field}.${sort.direction}`;
}

import { decodeCursor, encodeCursor } from '@inkwell/keyset';
import { isId } from './blog-post.js';

/** Sort fields of GET /blog-posts. */
export type SortField = 'date_posted' | 'num_views' | 'relevance';

/** Sort direction; ties are broken by id in the same direction (docs/api/lists.md, "Sorting"). */
export type SortDirection = 'asc' | 'desc';

/** One sort field and its direction. */
export interface BlogPostSort {
  readonly field: SortField;
  readonly direction: SortDirection;
}

/** The default order of blog post lists (docs/api/blog.md, "GET /blog-posts"). */
export const DEFAULT_SORT: BlogPostSort = { field: 'date_posted', direction: 'desc' };

/** Page size when none is asked for (docs/api/blog.md, "GET /blog-posts"). */
export const DEFAULT_PAGE_SIZE = 20;

/** The filters of GET /blog-posts; absent ones filter nothing, present ones combine with AND. */
export interface BlogPostFilter {
  ids?: string[];
  authorId?: string;
  /** ANY of these (normalised) tags. */
  tags?: string[];
  sitePost?: boolean;
  sitePostTag?: string;
  /** Inclusive; millisecond precision like the stored dates. */
  datePostedMin?: Date;
  datePostedMax?: Date;
  /** By NONE of these authors: the users the caller blocks, with filter[hide_blocked] (docs/api/safety.md). */
  hiddenAuthorIds?: string[];
}

/** Where a page starts: the sort value and id of the last post of the previous page. */
export interface Keyset {
  /** Milliseconds since the epoch (date_posted), a count (num_views) or a rank as Postgres printed it (relevance). */
  readonly value: string;
  readonly id: string;
}

/** One validated list request as the repository runs it. */
export interface BlogPostListQuery {
  /** Trimmed search text; empty means no search. */
  query: string;
  filter: BlogPostFilter;
  sort: BlogPostSort;
  pageSize: number;
  after?: Keyset;
  includeContent: boolean;
}

const VALUE_FORMAT: Readonly<Record<SortField, RegExp>> = {
  date_posted: /^-?[0-9]{1,16}$/,
  num_views: /^[0-9]{1,10}$/,
  relevance: /^[0-9]+(\.[0-9]+)?(e-?[0-9]+)?$/,
};

/** The name a sort goes by inside cursors, so a cursor made for one order is refused by another. */
function sortName(sort: BlogPostSort): string {
  return `${sort.field}.${sort.direction}`;
}

/** Encodes where the next page starts as an opaque cursor (`@inkwell/keyset`); the gateway keeps it behind its own token. */
export function encodeKeyset(sort: BlogPostSort, keyset: Keyset): string {
  return encodeCursor(sortName(sort), [keyset.value, keyset.id]);
}

/** Decodes an `after` made by encodeKeyset for the same sort; undefined for anything else. */
export function decodeKeyset(sort: BlogPostSort, text: string): Keyset | undefined {
  const [value, id] = decodeCursor(sortName(sort), text, 2) ?? [];
  if (typeof value !== 'string' || !VALUE_FORMAT[sort.field].test(value)) return undefined;
  if (typeof id !== 'string' || !isId(id)) return undefined;
  return { value, id };
}

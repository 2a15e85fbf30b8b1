import { isId } from './blog-post.js';

/** Sort fields of GET /blog-posts. */
export type SortField = 'date_posted' | 'num_views' | 'relevance';

/** Sort direction; ties are broken by id in the same direction (contract §10). */
export type SortDirection = 'asc' | 'desc';

/** One sort field and its direction. */
export interface BlogPostSort {
  readonly field: SortField;
  readonly direction: SortDirection;
}

/** The default order of blog post lists (contract §6). */
export const DEFAULT_SORT: BlogPostSort = { field: 'date_posted', direction: 'desc' };

/** Page size when none is asked for, and the largest allowed (contract §6). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** Most ids `filter[ids]` may name. */
export const MAX_FILTER_IDS = 100;
/** Longest search query in characters. */
export const MAX_QUERY_LENGTH = 500;

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

/**
 * Encodes where the next page starts as an opaque string (base64url of JSON naming the sort, so a
 * cursor made for one order is refused by another). The gateway's cursor store keeps it behind
 * its own token; clients never see it.
 */
export function encodeKeyset(sort: BlogPostSort, keyset: Keyset): string {
  return Buffer.from(JSON.stringify([sort.field, sort.direction, keyset.value, keyset.id])).toString('base64url');
}

/** Decodes an `after` made by encodeKeyset for the same sort; undefined for anything else. */
export function decodeKeyset(sort: BlogPostSort, text: string): Keyset | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) return undefined;
  const [field, direction, value, id] = parsed as unknown[];
  if (field !== sort.field || direction !== sort.direction) return undefined;
  if (typeof value !== 'string' || !VALUE_FORMAT[sort.field].test(value)) return undefined;
  if (typeof id !== 'string' || !isId(id)) return undefined;
  return { value, id };
}

/**
 * Limits a client can observe, defined once: the service that owns a rule enforces it; the
 * gateway only reads these to describe them (the OpenAPI document) and never checks them again.
 * Dependency-free, so services' domain code and the gateway can both import it.
 */

/**
 * GET /stories counts its whole list exactly up to this many stories; above it `meta.total` is
 * this number and `meta.total_is_lower_bound` is true (docs/api/stories.md, "GET /stories").
 */
export const STORY_LIST_EXACT_TOTAL_MAX = 10_000;

/** Most distinct tags on one blog post, counted after normalisation (docs/api/blog.md, "Writing"). */
export const BLOG_POST_MAX_TAGS = 10;

/** Longest blog tag (and site-post tag), in characters after normalisation (docs/api/blog.md). */
export const BLOG_TAG_MAX_CHARS = 50;

/**
 * The one normal form of a blog tag: trimmed, runs of whitespace collapsed to one space, lower
 * case (so `Drabble`, ` drabble ` and `DRABBLE` are one tag). The blog service stores and matches
 * tags in this form; the gateway uses it only so that equivalent `filter[tags]` share a page token.
 */
export function normaliseBlogTag(tag: string): string {
  return tag.trim().replace(/\s+/g, ' ').toLowerCase();
}

export { approximateBytes, BATCH_ANSWER_MAX_BYTES, type BatchPage, CALLER_SHARE_DEFAULTS, countWithinBudget, DOCUMENT_MAX_BYTES, ITEM_OVERHEAD_BYTES, LIST_PAGE_MAX_BYTES } from './budgets.js';
export { BoundedEntries, type EntryBounds } from './bounded-entries.js';

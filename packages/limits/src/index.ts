/**
 * Limits a client can observe, defined once: the service that owns a rule enforces it; the
 * gateway only reads these to describe them (the OpenAPI document) and never checks them again.
 * Dependency-free, so services' domain code and the gateway can both import it.
 */

/** Longest search text (`query`) of GET /stories, in characters after trimming (docs/api/stories.md). */
export const STORY_QUERY_MAX_CHARS = 200;

/** Longest search text (`query`) of GET /blog-posts, in characters after trimming (docs/api/blog.md). */
export const BLOG_QUERY_MAX_CHARS = 500;

/** The message both services give for search text over its limit (400, parameter `query`). */
export function searchTextTooLong(maxChars: number): string {
  return `The search text is longer than ${maxChars} characters.`;
}

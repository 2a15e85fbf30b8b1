/** The kinds of content a user's profile counts. */
export type ContentKind = 'story' | 'blog_post';

/**
 * What one story or blog-post event means for the author's counts: whether the item now counts
 * (a published story; a user's — not the site's — blog post that exists) or not.
 */
export interface AuthoredContentChange {
  kind: ContentKind;
  contentId: string;
  authorId: string;
  counts: boolean;
}

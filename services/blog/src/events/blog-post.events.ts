import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { EventPayloadInit } from '@inkwell/events';
import { BlogPostCreatedSchema, BlogPostDeletedSchema, BlogPostSnapshotSchema, BlogPostUpdatedSchema, BlogPostViewedSchema, type BlogPostSnapshot } from '@inkwell/proto/blog';
import type { BlogPost, Reader } from '../domain/blog-post.js';

/**
 * The event snapshot of a post: no content. `storyIds` are the stored links (also those to
 * stories no longer published); `author_id` is "0" for site posts.
 */
function snapshot(post: BlogPost, storyIds: readonly string[]): BlogPostSnapshot {
  return create(BlogPostSnapshotSchema, {
    blogPostId: post.id,
    authorId: post.authorId ?? '0',
    title: post.title,
    tags: post.tags,
    storyIds: [...storyIds],
    sitePost: post.sitePost,
    ...(post.sitePostTag === undefined ? {} : { sitePostTag: post.sitePostTag }),
    datePosted: timestampFromDate(post.datePosted),
    dateModified: timestampFromDate(post.dateModified),
  });
}

/** The `BlogPostCreated` outbox payload of a new post. */
export function blogPostCreated(post: BlogPost, storyIds: readonly string[]): EventPayloadInit {
  return { case: 'blogPostCreated', value: create(BlogPostCreatedSchema, { blogPost: snapshot(post, storyIds) }) };
}

/** The `BlogPostUpdated` outbox payload: the state after the change. */
export function blogPostUpdated(post: BlogPost, storyIds: readonly string[]): EventPayloadInit {
  return { case: 'blogPostUpdated', value: create(BlogPostUpdatedSchema, { blogPost: snapshot(post, storyIds) }) };
}

/** The `BlogPostDeleted` outbox payload: the last state before deletion. */
export function blogPostDeleted(post: BlogPost, storyIds: readonly string[]): EventPayloadInit {
  return { case: 'blogPostDeleted', value: create(BlogPostDeletedSchema, { blogPost: snapshot(post, storyIds) }) };
}

/** The `BlogPostViewed` outbox payload of one counted view. */
export function blogPostViewed(postId: string, reader: Reader): EventPayloadInit {
  const value = create(BlogPostViewedSchema, {
    blogPostId: postId,
    reader: reader.kind === 'user' ? { case: 'readerUserId', value: reader.userId } : { case: 'readerAppId', value: reader.appId },
  });
  return { case: 'blogPostViewed', value };
}

import { createServiceConsumer, storyStateOf, type ConsumerWiring, type EventConsumer, type ServiceEventHandler } from '@inkwell/events';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import type { AuthoredContentChange } from '../domain/authored-content.js';
import { AuthoredContentRepository } from '../repositories/authored-content.repository.js';
import { AuthoredContentService } from '../services/authored-content.service.js';

/** Options of the users service's authored-content consumer (group `users-authored-content`, topics stories.story.v1 and blog.post.v1 by default). */
export interface AuthoredContentConsumerOptions extends ConsumerWiring {
  /** A pool of the users schema. */
  pool: pg.Pool;
}

/**
 * What a stories or blog event means for the author's counts, or undefined for events that do
 * not change them (views, ratings, chapters, comments). A story counts while it is published; a
 * blog post counts while it exists and is not a site post.
 */
export function authoredContentChangeOf(envelope: EventEnvelope): AuthoredContentChange | undefined {
  const story = storyStateOf(envelope);
  if (story !== undefined) return { kind: 'story', contentId: story.storyId, authorId: story.authorId, counts: story.published && !story.deleted };
  const { payload } = envelope;
  switch (payload.case) {
    case 'blogPostCreated':
    case 'blogPostUpdated':
    case 'blogPostDeleted': {
      const post = payload.value.blogPost;
      if (post === undefined) return undefined;
      const counts = payload.case !== 'blogPostDeleted' && !post.sitePost;
      return { kind: 'blog_post', contentId: post.blogPostId, authorId: post.authorId, counts };
    }
    default:
      return undefined;
  }
}

/** Applies one event in the consumer's transaction (so exactly once per event id). */
export const handleAuthoredContentEvent: ServiceEventHandler = async (envelope, client) => {
  const change = authoredContentChangeOf(envelope);
  if (change === undefined) return;
  await new AuthoredContentService(new AuthoredContentRepository(client)).record(change);
};

/** The consumer that keeps num_stories and num_blog_posts in step with the other services. */
export function createAuthoredContentConsumer(options: AuthoredContentConsumerOptions): EventConsumer {
  return createServiceConsumer(options, { groupId: 'users-authored-content', topics: [Topics.storiesStory, Topics.blogPost] }, handleAuthoredContentEvent);
}

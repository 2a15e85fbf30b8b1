import { timestampDate } from '@bufbuild/protobuf/wkt';
import { createConsumer, type ConsumerWiring, type EventConsumer, type EventHandler } from '@inkwell/events';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import type { StoryChange } from '../domain/known-story.js';
import { KnownStoryRepository } from '../repositories/known-story.repository.js';
import { KnownStoryService } from '../services/known-story.service.js';

/** Options of the blog's stories consumer (group `blog-stories`, topic stories.story.v1 by default). */
export interface StoryConsumerOptions extends ConsumerWiring {
  /** A pool of the blog schema (holds known_stories and processed_events). */
  pool: pg.Pool;
}

/**
 * The story change an envelope carries (StoryCreated/StoryUpdated/StoryDeleted), or undefined for
 * the other events of the topic (views, ratings), which the blog does not need.
 */
export function storyChangeOf(envelope: EventEnvelope): StoryChange | undefined {
  const payload = envelope.payload;
  const occurredAt = envelope.occurredAt === undefined ? new Date(0) : timestampDate(envelope.occurredAt);
  switch (payload.case) {
    case 'storyCreated':
    case 'storyUpdated':
    case 'storyDeleted': {
      const story = payload.value.story;
      if (story === undefined || story.storyId === '0') return undefined;
      return { storyId: story.storyId, published: story.published, deleted: payload.case === 'storyDeleted', occurredAt };
    }
    default:
      return undefined;
  }
}

/** Applies one story event to the blog's copy, in the consumer's transaction (so exactly once). */
export const handleStoryEvent: EventHandler = async (envelope, client) => {
  const change = storyChangeOf(envelope);
  if (change === undefined) return;
  await new KnownStoryService(new KnownStoryRepository(client)).record(change);
};

/**
 * The consumer that keeps known_stories in step with stories.story.v1: which stories exist and
 * are published, so that posts can link only published stories without a call to the stories
 * service on every write or read.
 */
export function createStoryConsumer(options: StoryConsumerOptions): EventConsumer {
  return createConsumer({
    kafka: options.kafka,
    groupId: options.groupId ?? 'blog-stories',
    topics: options.topics ?? [Topics.storiesStory],
    pool: options.pool,
    logger: options.logger,
    handle: handleStoryEvent,
  });
}

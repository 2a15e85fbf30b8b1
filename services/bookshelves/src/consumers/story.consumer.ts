import { timestampDate } from '@bufbuild/protobuf/wkt';
import { createConsumer, type ConsumerWiring, type EventConsumer, type EventHandler } from '@inkwell/events';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import type { StoryState } from '../domain/known-story.js';
import { KnownStoryRepository } from '../repositories/known-story.repository.js';
import { KnownStoryService } from '../services/known-story.service.js';

/** Options of the bookshelves' stories consumer (group `bookshelves-stories`, topic stories.story.v1 by default). */
export interface StoryConsumerOptions extends ConsumerWiring {
  /** A pool of the bookshelves schema (holds known_stories and processed_events). */
  pool: pg.Pool;
}

/**
 * The story state an envelope carries (StoryCreated/StoryUpdated/StoryDeleted), or undefined for
 * the other events of the topic (views, ratings), which do not change what shelves show. The
 * version is the snapshot's date_modified.
 */
export function storyStateOf(envelope: EventEnvelope): StoryState | undefined {
  const payload = envelope.payload;
  switch (payload.case) {
    case 'storyCreated':
    case 'storyUpdated':
    case 'storyDeleted': {
      const story = payload.value.story;
      if (story === undefined || story.storyId === '0') return undefined;
      const modified = story.dateModified ?? envelope.occurredAt;
      return {
        storyId: story.storyId,
        authorId: story.authorId,
        published: story.published,
        deleted: payload.case === 'storyDeleted',
        version: modified === undefined ? new Date(0) : timestampDate(modified),
      };
    }
    default:
      return undefined;
  }
}

/** Applies one story event in the consumer's transaction (so exactly once). */
export const handleStoryEvent: EventHandler = async (envelope, client) => {
  const state = storyStateOf(envelope);
  if (state === undefined) return;
  await new KnownStoryService(new KnownStoryRepository(client)).record(state);
};

/**
 * The consumer that keeps known_stories, and the shelf counts derived from it, in step with
 * stories.story.v1 (docs/api/bookshelves.md, "How the service knows the stories").
 */
export function createStoryConsumer(options: StoryConsumerOptions): EventConsumer {
  return createConsumer({
    kafka: options.kafka,
    groupId: options.groupId ?? 'bookshelves-stories',
    topics: options.topics ?? [Topics.storiesStory],
    pool: options.pool,
    logger: options.logger,
    handle: handleStoryEvent,
  });
}

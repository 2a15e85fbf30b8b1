import type pg from 'pg';
import { createServiceConsumer, storyStateOf, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { Topics } from '@inkwell/proto/topics';
import { KnownStoryRepository, type KnownStoryStoreFactory } from './known-story.repository.js';
import { KnownStoryService } from './known-story.service.js';

/** Options of {@link createKnownStoryConsumer}. */
export interface KnownStoryConsumerOptions extends ConsumerWiring {
  /** The consuming service's name: its consumer group is `<service>-stories` unless `groupId` says otherwise. */
  service: string;
  /** A pool of the service's schema (holds the copy and processed_events). */
  pool: pg.Pool;
  /** The store each event is written through (default: the plain copy in `known_stories`). */
  store?: KnownStoryStoreFactory;
}

/**
 * The consumer that keeps a service's copy of the stories in step with stories.story.v1: each
 * StoryCreated, StoryUpdated or StoryDeleted is recorded in the consumer's transaction, so exactly
 * once per event id; the topic's other events are skipped.
 */
export function createKnownStoryConsumer(options: KnownStoryConsumerOptions): EventConsumer {
  const store = options.store ?? ((client) => new KnownStoryRepository(client));
  return createServiceConsumer(options, { groupId: `${options.service}-stories`, topics: [Topics.storiesStory] }, async (envelope, client) => {
    const state = storyStateOf(envelope);
    if (state !== undefined) await new KnownStoryService(store(client)).record(state);
  });
}

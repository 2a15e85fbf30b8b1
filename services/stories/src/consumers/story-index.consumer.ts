import { createBatchConsumer, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { Topics } from '@inkwell/proto/topics';
import type { StoryIndexService } from '../services/story-index.service.js';

/** Options of the consumer that keeps the search index (group `stories-index`, topic stories.story.v1 by default). */
export interface StoryIndexConsumerOptions extends ConsumerWiring {
  index: StoryIndexService;
}

/**
 * Kafka input of the search index (docs/api/stories.md, "Search"): every event on
 * stories.story.v1 is about the story its key names (created, updated, deleted, and
 * StoryStatsChanged after the counts changed), so a fetched batch becomes one sync of its
 * distinct story ids: one read of their rows, one `_bulk`. The index's external versions make
 * replays and reordering harmless; a batch the index cannot take is retried, its offsets not
 * committed, until it can.
 */
export function createStoryIndexConsumer(options: StoryIndexConsumerOptions): EventConsumer {
  return createBatchConsumer({
    kafka: options.kafka,
    groupId: options.groupId ?? 'stories-index',
    topics: options.topics ?? [Topics.storiesStory],
    logger: options.logger,
    async handleBatch(envelopes) {
      await options.index.syncStories(envelopes.map((envelope) => envelope.key).filter((key) => /^[1-9][0-9]{0,18}$/.test(key)));
    },
  });
}

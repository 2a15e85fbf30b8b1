import { timestampDate } from '@bufbuild/protobuf/wkt';
import { createConsumer, type EventConsumer } from '@inkwell/events';
import type { Logger } from '@inkwell/logging';
import { Topics } from '@inkwell/proto/topics';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import type { StoryStatsService } from '../services/story-stats.service.js';

/** Options of the consumer that keeps reader-driven counts. */
export interface StoryStatsConsumerOptions {
  kafka: Kafka;
  pool: pg.Pool;
  stats: StoryStatsService;
  logger: Logger;
  /** Kafka consumer group (default `stories-stats`); tests use their own. */
  groupId?: string;
  /** Topic of story events (default stories.story.v1); tests use throwaway topics. */
  topic?: string;
}

/**
 * Kafka input of the stories service's own story events: StoryViewed counts a view (and heat).
 * Idempotent through createConsumer: a redelivered event changes nothing.
 */
export function createStoryStatsConsumer(options: StoryStatsConsumerOptions): EventConsumer {
  return createConsumer({
    kafka: options.kafka,
    groupId: options.groupId ?? 'stories-stats',
    topics: [options.topic ?? Topics.storiesStory],
    pool: options.pool,
    logger: options.logger,
    async handle(envelope, client) {
      if (envelope.payload.case !== 'storyViewed') return;
      const view = envelope.payload.value;
      const at = envelope.occurredAt ? timestampDate(envelope.occurredAt) : new Date();
      await options.stats.applyView(client, view.storyId, view.chapterId, at);
    },
  });
}

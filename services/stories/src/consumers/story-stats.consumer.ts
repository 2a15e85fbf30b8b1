import { createServiceBatchConsumer, occurredAtOf, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import { ratingValueFromProto } from '../events/story.events.js';
import type { StoryStatsEvent, StoryStatsService } from '../services/story-stats.service.js';

/** Options of the consumer that keeps reader-driven counts (group `stories-stats`, topics stories.story.v1 and stories.comment.v1 by default). */
export interface StoryStatsConsumerOptions extends ConsumerWiring {
  pool: pg.Pool;
  stats: StoryStatsService;
}

/**
 * Kafka input of the stories service's own events: StoryViewed counts a view, StoryRated a vote,
 * CommentCreated/CommentDeleted a comment (each with its heat), a fetched batch at a time (one
 * write per story: StoryStatsService.applyEvents). Idempotent through the consumer's dedupe rows:
 * a redelivered event changes nothing.
 */
export function createStoryStatsConsumer(options: StoryStatsConsumerOptions): EventConsumer {
  return createServiceBatchConsumer(options, { groupId: 'stories-stats', topics: [Topics.storiesStory, Topics.storiesComment] }, (envelopes, client) =>
    options.stats.applyEvents(client, envelopes.flatMap(statsEventOf)),
  );
}

/** The reader-driven event an envelope carries, if any (other events of the topics count nothing). */
function statsEventOf(envelope: EventEnvelope): StoryStatsEvent[] {
  const at = occurredAtOf(envelope);
  const payload = envelope.payload;
  switch (payload.case) {
    case 'storyViewed':
      return [{ kind: 'view', storyId: payload.value.storyId, chapterId: payload.value.chapterId, at }];
    case 'storyRated':
      return [{ kind: 'vote', storyId: payload.value.storyId, value: ratingValueFromProto(payload.value.value), previous: ratingValueFromProto(payload.value.previousValue), at }];
    case 'commentCreated':
      return [{ kind: 'comment', storyId: payload.value.storyId, delta: 1, at }];
    case 'commentDeleted':
      return [{ kind: 'comment', storyId: payload.value.storyId, delta: -1, at }];
    default:
      return [];
  }
}

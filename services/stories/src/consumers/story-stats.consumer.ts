import { createServiceConsumer, occurredAtOf, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import { ratingValueFromProto } from '../events/story.events.js';
import type { StoryStatsService } from '../services/story-stats.service.js';

/** Options of the consumer that keeps reader-driven counts (group `stories-stats`, topics stories.story.v1 and stories.comment.v1 by default). */
export interface StoryStatsConsumerOptions extends ConsumerWiring {
  pool: pg.Pool;
  stats: StoryStatsService;
}

/**
 * Kafka input of the stories service's own events: StoryViewed counts a view, StoryRated a vote,
 * CommentCreated/CommentDeleted a comment (each with its heat). Idempotent through
 * createConsumer: a redelivered event changes nothing.
 */
export function createStoryStatsConsumer(options: StoryStatsConsumerOptions): EventConsumer {
  return createServiceConsumer(options, { groupId: 'stories-stats', topics: [Topics.storiesStory, Topics.storiesComment] }, async (envelope, client) => {
    const at = occurredAtOf(envelope);
    const payload = envelope.payload;
    switch (payload.case) {
      case 'storyViewed':
        await options.stats.applyView(client, payload.value.storyId, payload.value.chapterId, at);
        return;
      case 'storyRated':
        await options.stats.applyVote(client, payload.value.storyId, ratingValueFromProto(payload.value.value), ratingValueFromProto(payload.value.previousValue), at);
        return;
      case 'commentCreated':
        await options.stats.applyComment(client, payload.value.storyId, 1, at);
        return;
      case 'commentDeleted':
        await options.stats.applyComment(client, payload.value.storyId, -1, at);
        return;
      default:
    }
  });
}

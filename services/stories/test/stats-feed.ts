import { createLogger } from '@inkwell/logging';
import { createTestTopics, type TestTopics } from '@inkwell/testing';
import { createStoryStatsConsumer } from '../src/consumers/story-stats.consumer.js';
import { StoryRepository } from '../src/repositories/story.repository.js';
import { StoryStatsService } from '../src/services/story-stats.service.js';
import type { StoriesHarness } from './harness.js';

/** A running story-stats consumer over a harness's database, fed by hand through one throwaway topic. */
export interface StatsFeed {
  /** The test topics: send events with `kafka.send(topic, …)`, await `kafka.consumed(topic)`. */
  kafka: TestTopics;
  topic: string;
  /** Stops the consumer and deletes the topic. */
  close(): Promise<void>;
}

/** Starts the story-stats consumer of `h`'s database on a topic of its own (`name` prefixes it and the group). */
export async function startStatsFeed(h: StoriesHarness, name: string): Promise<StatsFeed> {
  const kafka = await createTestTopics(name, ['events']);
  const stats = new StoryStatsService(new StoryRepository(h.pool));
  const consumer = createStoryStatsConsumer({ kafka: kafka.kafka, pool: h.pool, stats, logger: createLogger(`${name}-test`), topics: kafka.topics, groupId: kafka.groupId });
  await consumer.start();
  return {
    kafka,
    topic: kafka.topics[0]!,
    async close() {
      await consumer.stop();
      await kafka.close();
    },
  };
}

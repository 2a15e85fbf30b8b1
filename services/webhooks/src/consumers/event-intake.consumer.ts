import { createExactlyOnceBatchConsumer, storyStateOf, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { KnownStoryRepository, KnownStoryService } from '@inkwell/known-stories';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import type { AppDirectoryRepository } from '../repositories/app-directory.repository.js';
import { EventIntakeRepository } from '../repositories/event-intake.repository.js';
import { EventIntakeService } from '../services/event-intake.service.js';
import type { WebhookEvent } from '../domain/webhook-event.js';
import { shelfStateOf, webhookEventOf } from './webhook-event.mapper.js';

/** The topics whose events become webhook events (docs/api/webhooks.md, "Event types"). */
export const INTAKE_TOPICS = [Topics.storiesStory, Topics.storiesChapter, Topics.blogPost, Topics.bookshelvesBookshelf, Topics.bookshelvesItem, Topics.messagingMessage] as const;

/** Options of {@link createEventIntakeConsumer}. */
export interface EventIntakeConsumerOptions extends ConsumerWiring {
  pool: pg.Pool;
  apps: Pick<AppDirectoryRepository, 'scopesOf'>;
  apiBaseUrl: string;
  /** Pending deliveries per endpoint above which the oldest fail (default 10,000). */
  maxPendingPerEndpoint?: number;
}

/**
 * The consumer that feeds deliveries, a fetched batch of events at a time: each event, exactly
 * once (in the transaction that records the batch as processed), updates the copies of stories
 * and shelves in order, and the batch's webhook events are queued together, one pending delivery
 * per matching endpoint. A failure (the users service down for a private event) is retried by the
 * consumer, so nothing is skipped.
 */
export function createEventIntakeConsumer(options: EventIntakeConsumerOptions): EventConsumer {
  return createExactlyOnceBatchConsumer({
    kafka: options.kafka,
    logger: options.logger,
    pool: options.pool,
    groupId: options.groupId ?? 'webhooks-intake',
    topics: options.topics ?? INTAKE_TOPICS,
    async handleBatch(envelopes, client) {
      const store = new EventIntakeRepository(client);
      const knownStories = new KnownStoryService(new KnownStoryRepository(client));
      const events: WebhookEvent[] = [];
      for (const envelope of envelopes) {
        const story = storyStateOf(envelope);
        if (story !== undefined) await knownStories.record(story);
        const shelf = shelfStateOf(envelope);
        if (shelf !== undefined) await store.recordShelf(shelf);
        const event = await webhookEventOf(envelope, store);
        if (event !== undefined) events.push(event);
      }
      const intake = new EventIntakeService({
        store,
        apps: options.apps,
        apiBaseUrl: options.apiBaseUrl,
        logger: options.logger,
        ...(options.maxPendingPerEndpoint === undefined ? {} : { maxPendingPerEndpoint: options.maxPendingPerEndpoint }),
      });
      await intake.ingest(events);
    },
  });
}

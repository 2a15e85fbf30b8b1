import { createServiceConsumer, storyStateOf, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { KnownStoryRepository, KnownStoryService } from '@inkwell/known-stories';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import type { AppDirectoryRepository } from '../repositories/app-directory.repository.js';
import { EventIntakeRepository } from '../repositories/event-intake.repository.js';
import { EventIntakeService } from '../services/event-intake.service.js';
import { shelfStateOf, webhookEventOf } from './webhook-event.mapper.js';

/** The topics whose events become webhook events (docs/api/webhooks.md, "Event types"). */
export const INTAKE_TOPICS = [Topics.storiesStory, Topics.storiesChapter, Topics.blogPost, Topics.bookshelvesBookshelf, Topics.bookshelvesItem, Topics.messagingMessage] as const;

/** Options of {@link createEventIntakeConsumer}. */
export interface EventIntakeConsumerOptions extends ConsumerWiring {
  pool: pg.Pool;
  apps: Pick<AppDirectoryRepository, 'scopesOf'>;
  apiBaseUrl: string;
}

/**
 * The consumer that feeds deliveries: each event, exactly once (in the transaction that records
 * it as processed), updates the copies of stories and shelves and queues one pending delivery per
 * matching endpoint. A failure (the users service down for a private event) is retried by the
 * consumer, so nothing is skipped.
 */
export function createEventIntakeConsumer(options: EventIntakeConsumerOptions): EventConsumer {
  return createServiceConsumer(options, { groupId: 'webhooks-intake', topics: INTAKE_TOPICS }, async (envelope, client) => {
    const store = new EventIntakeRepository(client);
    const story = storyStateOf(envelope);
    if (story !== undefined) await new KnownStoryService(new KnownStoryRepository(client)).record(story);
    const shelf = shelfStateOf(envelope);
    if (shelf !== undefined) await store.recordShelf(shelf);
    const event = await webhookEventOf(envelope, store);
    if (event !== undefined) await new EventIntakeService(store, options.apps, options.apiBaseUrl).ingest(event);
  });
}

import { randomUUID } from 'node:crypto';
import { createLogger } from '@inkwell/logging';
import { describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../domain/webhook-event.js';
import type { QueuedDelivery, StoredEvent, SubscribedEndpoint } from '../repositories/event-intake.repository.js';
import { MemoryAppDirectory } from '../testing/memory.repositories.js';
import { EventIntakeService } from './event-intake.service.js';

/** The intake's store in memory: what was queued, in order. */
class MemoryIntakeStore {
  readonly endpoints: SubscribedEndpoint[] = [];
  readonly events: StoredEvent[] = [];
  readonly deliveries: QueuedDelivery[] = [];

  async subscribedEndpoints(types: readonly string[]): Promise<SubscribedEndpoint[]> {
    return this.endpoints.filter((endpoint) => endpoint.eventTypes.some((type) => types.includes(type)));
  }

  async enqueue(events: readonly StoredEvent[], deliveries: readonly QueuedDelivery[]): Promise<number> {
    this.events.push(...events);
    this.deliveries.push(...deliveries);
    return deliveries.length;
  }

  async failBeyondBacklog(): Promise<Map<string, number>> {
    return new Map();
  }
}

/** Counts the users service's calls. */
class CountingAppDirectory extends MemoryAppDirectory {
  readonly asked: string[] = [];

  override async scopesOf(userId: string, appIds: readonly string[]): Promise<Map<string, string[]>> {
    this.asked.push(userId);
    return super.scopesOf(userId, appIds);
  }
}

const messageTo = (userId: string): WebhookEvent => ({ id: randomUUID(), type: 'private_message.received', occurredAt: new Date(), resource: { type: 'private_message', id: '1', path: '/private-messages/1' }, userId });
const storyPublished = (): WebhookEvent => ({ id: randomUUID(), type: 'story.published', occurredAt: new Date(), resource: { type: 'story', id: '4', path: '/stories/4' } });

function setup() {
  const store = new MemoryIntakeStore();
  const apps = new CountingAppDirectory();
  const service = new EventIntakeService({ store, apps, apiBaseUrl: 'https://inkwell.example/api/v1', logger: createLogger('intake-test') });
  return { store, apps, service };
}

describe('EventIntakeService', () => {
  it('queues a batch in order: public events for every subscriber, private ones for the apps their user grants the scope', async () => {
    const { store, apps, service } = setup();
    store.endpoints.push({ id: '1', appId: 'reader-app', eventTypes: ['private_message.received', 'story.published'] }, { id: '2', appId: 'other-app', eventTypes: ['private_message.received'] });
    apps.grants.set('7/reader-app', ['read_pms']);
    apps.grants.set('8/other-app', ['read_pms']);
    apps.grants.set('8/reader-app', ['read_stories']);
    const batch = [messageTo('7'), storyPublished(), messageTo('8'), messageTo('9'), messageTo('7')];

    expect(await service.ingest(batch)).toBe(4);

    expect(store.deliveries.map((delivery) => [delivery.eventId, delivery.endpointId])).toEqual([
      [batch[0]!.id, '1'],
      [batch[1]!.id, '1'],
      [batch[2]!.id, '2'],
      [batch[4]!.id, '1'],
    ]);
    expect(store.events.map((event) => [event.id, event.userId, event.scope])).toEqual([
      [batch[0]!.id, '7', 'read_pms'],
      [batch[1]!.id, undefined, undefined],
      [batch[2]!.id, '8', 'read_pms'],
      [batch[4]!.id, '7', 'read_pms'],
    ]);
    // One question per user of the batch, however many of their events it holds.
    expect([...apps.asked].sort()).toEqual(['7', '8', '9']);
  });

  it('asks nothing and queues nothing when no endpoint takes the events', async () => {
    const { store, apps, service } = setup();
    expect(await service.ingest([messageTo('7'), storyPublished()])).toBe(0);
    expect(store.events).toEqual([]);
    expect(apps.asked).toEqual([]);
  });
});

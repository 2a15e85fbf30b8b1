import { randomUUID } from 'node:crypto';
import { createLogger } from '@inkwell/logging';
import { withTransaction } from '@inkwell/pg';
import { dropSchemas, ensureDatabase, stackEnv } from '@inkwell/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryRepository } from '../src/repositories/delivery.repository.js';
import { EventIntakeRepository } from '../src/repositories/event-intake.repository.js';
import { openWebhooksDatabase, WEBHOOKS_SCHEMA } from '../src/schema.js';
import { EventIntakeService } from '../src/services/event-intake.service.js';
import type { WebhookEvent } from '../src/domain/webhook-event.js';

/**
 * The intake's writes in the real webhooks schema (docs/api/webhooks.md, "Design", "Backlog
 * cap"): a batch of events queued in one transaction, in order and idempotently, and the oldest
 * pending deliveries of an endpoint over its cap failed. Public events only, so that the users
 * service is not asked (test/deliveries.system.test.ts runs private ones with the real one).
 */
describe('event intake in Postgres', () => {
  let pool: pg.Pool;
  const apps = {
    scopesOf: (): Promise<Map<string, string[]>> => Promise.reject(new Error('public events need no authorization')),
  };
  const logger = createLogger('intake-test');

  beforeAll(async () => {
    const databaseUrl = await ensureDatabase(stackEnv().databaseUrl, 'webhooks_intake_test');
    await dropSchemas(databaseUrl, [WEBHOOKS_SCHEMA]);
    pool = await openWebhooksDatabase({ connectionString: databaseUrl, logger });
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
  });

  async function endpoint(appId: string, eventTypes: string[]): Promise<string> {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO endpoints (app_id, owner_user_id, url, event_types, secret_sealed) VALUES ($1, 1, 'https://hooks.example/x', $2, '\\x00') RETURNING id::text AS id`,
      [appId, eventTypes],
    );
    return rows[0]!.id;
  }

  const storyEvent = (type: 'story.published' | 'story.updated', storyId: string): WebhookEvent => ({ id: randomUUID(), type, occurredAt: new Date(), resource: { type: 'story', id: storyId, path: `/stories/${storyId}` } });
  const storyPublished = (storyId: string) => storyEvent('story.published', storyId);
  const chapterPublished = (chapterId: string): WebhookEvent => ({ id: randomUUID(), type: 'chapter.published', occurredAt: new Date(), resource: { type: 'chapter', id: chapterId, path: `/chapters/${chapterId}` } });

  /** Ingests `events` as the consumer does: in one transaction. */
  function ingest(events: WebhookEvent[], maxPendingPerEndpoint?: number): Promise<number> {
    return withTransaction(pool, (client) =>
      new EventIntakeService({ store: new EventIntakeRepository(client), apps, apiBaseUrl: 'https://inkwell.example/api/v1', logger, ...(maxPendingPerEndpoint === undefined ? {} : { maxPendingPerEndpoint }) }).ingest(events),
    );
  }

  async function logOf(endpointId: string): Promise<Array<{ event_id: string; status: string; last_error: string }>> {
    const { rows } = await pool.query<{ event_id: string; status: string; last_error: string }>('SELECT event_id::text AS event_id, status, last_error FROM deliveries WHERE endpoint_id = $1 ORDER BY id', [endpointId]);
    return rows;
  }

  it('queues a batch in its order, for every endpoint subscribed to each type, once per event', async () => {
    const published = await endpoint('app-published', ['story.published']);
    const both = await endpoint('app-both', ['story.published', 'chapter.published']);
    await endpoint('app-blog', ['blog_post.published']);
    const batch = [storyPublished('1'), chapterPublished('2'), storyPublished('3')];

    expect(await ingest(batch)).toBe(5);
    expect(await ingest(batch)).toBe(0);

    expect((await logOf(published)).map((row) => row.event_id)).toEqual([batch[0]!.id, batch[2]!.id]);
    expect((await logOf(both)).map((row) => row.event_id)).toEqual(batch.map((event) => event.id));
    // The worker takes them oldest first: each endpoint's deliveries in the batch's order.
    const claimed = await new DeliveryRepository(pool).claim({ limit: 10, perEndpoint: 10, skipEndpoints: [], remaining: new Map(), leaseMs: 30_000 });
    expect(claimed.filter((delivery) => delivery.endpointId === both).map((delivery) => delivery.eventId)).toEqual(batch.map((event) => event.id));
  });

  it('fails the oldest pending deliveries of an endpoint over its backlog cap, and keeps them in its log', async () => {
    const busy = await endpoint('app-busy', ['story.updated']);
    const first = Array.from({ length: 4 }, (_, n) => storyEvent('story.updated', String(n)));
    await ingest(first, 3);
    const later = [storyEvent('story.updated', '9')];
    await ingest(later, 3);

    const log = await logOf(busy);
    expect(log.map((row) => row.event_id)).toEqual([...first, ...later].map((event) => event.id));
    expect(log.map((row) => row.status)).toEqual(['failed', 'failed', 'pending', 'pending', 'pending']);
    expect(log.slice(0, 2).map((row) => row.last_error)).toEqual(['backlog_full', 'backlog_full']);
  });
});

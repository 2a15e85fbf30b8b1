import { withTransaction } from '@inkwell/pg';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, OutboxRelay } from '../src/index.js';
import { deleteTestTopics, logger, newSchema, newTopic, recordTopic, testKafka, waitFor } from './support.js';

let kafka: Kafka;
let pool: pg.Pool;
let schema: string;
let drop: () => Promise<void>;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  kafka = testKafka();
  ({ pool, schema, drop } = await newSchema([{ version: 'test_0001', name: 'stories', sql: 'CREATE TABLE stories (id bigint PRIMARY KEY, title text NOT NULL);' }]));
});

// Relays of one test must not pick up the next test's rows.
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await drop();
  await deleteTestTopics(kafka);
});

async function startRelay(options: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}): Promise<OutboxRelay> {
  const relay = new OutboxRelay({ pool, schema, kafka, logger, ...options });
  await relay.start();
  cleanups.push(() => relay.stop());
  return relay;
}

async function record(topic: string) {
  const reader = await recordTopic(kafka, topic);
  cleanups.push(reader.stop);
  return reader.records;
}

function viewed(storyId: number) {
  return { case: 'storyViewed' as const, value: { storyId: String(storyId), chapterId: '1', reader: { case: 'readerAppId' as const, value: 'app' } } };
}

async function unsentCount(): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM outbox WHERE sent_at IS NULL');
  return Number(rows[0]?.n);
}

describe('OutboxRelay', () => {
  it('publishes the event of a committed change with its key, id and type', async () => {
    const topic = await newTopic(kafka);
    const records = await record(topic);
    await startRelay();

    const eventId = await withTransaction(pool, async (client) => {
      await client.query("INSERT INTO stories VALUES (1, 'First')");
      return appendEvent(client, { topic, key: '1', payload: viewed(1) });
    });

    await waitFor('the event on Kafka', () => records.length > 0);
    const [seen] = records;
    expect(seen?.envelope.eventId).toBe(eventId);
    expect(seen?.envelope.type).toBe('inkwell.stories.v1.StoryViewed');
    expect(seen?.envelope.payload.case).toBe('storyViewed');
    expect(seen?.envelope.occurredAt).toBeDefined();
    expect(seen?.key).toBe('1');
    expect(seen?.headers).toEqual({ 'event-id': eventId, 'event-type': 'inkwell.stories.v1.StoryViewed' });
    await waitFor('the row marked sent', async () => (await unsentCount()) === 0);
  });

  it('is woken by the commit itself, not by its polling interval', async () => {
    const topic = await newTopic(kafka);
    const records = await record(topic);
    // The primer is in the outbox before the relay starts, so the relay's first poll sends it;
    // once it is on Kafka that poll is past its read, and with a minute between polls only a
    // notification can make the relay read the outbox again in time.
    const primerId = await appendEvent(pool, { topic, key: '8', payload: viewed(8) });
    await startRelay({ intervalMs: 60_000, listeningIntervalMs: 60_000 });
    await waitFor('the primer on Kafka', () => records.some((r) => r.envelope.eventId === primerId));

    const committedAt = Date.now();
    const eventId = await withTransaction(pool, (client) => appendEvent(client, { topic, key: '9', payload: viewed(9) }));
    await waitFor('the event on Kafka', () => records.some((r) => r.envelope.eventId === eventId), 10_000);
    const seen = records.find((r) => r.envelope.eventId === eventId);
    expect((seen?.receivedAt ?? Infinity) - committedAt).toBeLessThan(3_000);
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    const topic = await newTopic(kafka);
    const records = await record(topic);
    await startRelay();

    let rolledBackId = '';
    await expect(
      withTransaction(pool, async (client) => {
        await client.query("INSERT INTO stories VALUES (2, 'Never')");
        rolledBackId = await appendEvent(client, { topic, key: '2', payload: viewed(2) });
        throw new Error('abandon the change');
      }),
    ).rejects.toThrow('abandon the change');
    // A later committed event proves the relay has run past the point where the first would be.
    const markerId = await appendEvent(pool, { topic, key: '3', payload: viewed(3) });
    await waitFor('the marker event', () => records.some((r) => r.envelope.eventId === markerId));

    expect(records.map((r) => r.envelope.eventId)).toEqual([markerId]);
    expect(rolledBackId).not.toBe('');
    const { rows } = await pool.query('SELECT 1 FROM outbox WHERE event_id = $1', [rolledBackId]);
    expect(rows).toHaveLength(0);
  });

  it('delivers every event when a relay dies between publishing and marking, after a restart', async () => {
    const topic = await newTopic(kafka);
    const records = await record(topic);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await appendEvent(pool, { topic, key: String(i % 4), payload: viewed(i) }));

    // The first relay publishes its first batch, then "crashes" before every mark.
    let crashedBatch: string[] = [];
    let crashed!: () => void;
    const crash = new Promise<void>((resolve) => (crashed = resolve));
    const dying = await startRelay({
      batchSize: 10,
      afterPublish: (eventIds) => {
        if (crashedBatch.length === 0) crashedBatch = eventIds;
        crashed();
        throw new Error('relay process killed');
      },
    });
    await crash;
    await dying.stop();
    expect(await unsentCount()).toBe(30);
    expect(crashedBatch).toEqual(ids.slice(0, 10));

    await startRelay({ batchSize: 10 });
    await waitFor('all rows marked sent', async () => (await unsentCount()) === 0);
    await waitFor('every event on Kafka', () => ids.every((id) => records.some((r) => r.envelope.eventId === id)));

    const seen = records.map((r) => r.envelope.eventId);
    // The crashed batch went out before the crash and again after the restart.
    for (const id of crashedBatch) expect(seen.filter((s) => s === id).length).toBeGreaterThanOrEqual(2);
    // Per key, the first delivery of each event keeps outbox order.
    const firstSeen = [...new Set(seen)];
    for (let key = 0; key < 4; key++) {
      expect(firstSeen.filter((id) => ids.indexOf(id) % 4 === key)).toEqual(ids.filter((_, i) => i % 4 === key));
    }
  });

  it('never double-sends when two relays run on one outbox', async () => {
    const topic = await newTopic(kafka);
    const records = await record(topic);
    await startRelay({ batchSize: 7 });
    await startRelay({ batchSize: 7 });

    const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => appendEvent(pool, { topic, key: String(i), payload: viewed(i) })));
    await waitFor('every event on Kafka', () => records.length >= ids.length);
    // Once every row is marked sent no relay sends it again; a marker after that stands behind any
    // second copy in the topic's one partition.
    await waitFor('every row marked sent', async () => (await unsentCount()) === 0);
    const markerId = await appendEvent(pool, { topic, key: 'marker', payload: viewed(99) });
    await waitFor('the marker event', () => records.some((r) => r.envelope.eventId === markerId));

    expect(records.map((r) => r.envelope.eventId).sort()).toEqual([...ids, markerId].sort());
  });

  it('deletes sent rows older than the retention and keeps unsent ones', async () => {
    const topic = await newTopic(kafka);
    const records = await record(topic);
    const oldSent = await appendEvent(pool, { topic, key: 'a', payload: viewed(1) });
    await pool.query("UPDATE outbox SET sent_at = now() - interval '2 hours' WHERE event_id = $1", [oldSent]);

    await startRelay({ retentionMs: 60 * 60 * 1000 });
    const fresh = await appendEvent(pool, { topic, key: 'b', payload: viewed(2) });
    await waitFor('the fresh event on Kafka', () => records.some((r) => r.envelope.eventId === fresh));
    // The relay prunes after the batch it is publishing, so the fresh event can reach Kafka a moment
    // before the old row goes: wait for the pruning rather than racing it.
    const remaining = async () => (await pool.query<{ event_id: string }>('SELECT event_id FROM outbox WHERE event_id = ANY($1::uuid[])', [[oldSent, fresh]])).rows.map((row) => row.event_id);
    await waitFor('the old sent row pruned', async () => !(await remaining()).includes(oldSent));

    expect(await remaining()).toEqual([fresh]);
  });
});

import { create, toBinary } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { withTransaction } from '@inkwell/pg';
import { EventEnvelopeSchema, type EventEnvelope } from '@inkwell/proto/events';
import { StoryViewedSchema } from '@inkwell/proto/stories';
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, createConsumer, OutboxRelay, type EventHandler } from '../src/index.js';
import { deleteTestTopics, logger, newSchema, newTopic, testKafka, unique, waitFor } from './support.js';

let kafka: Kafka;
let producer: Producer;
let pool: pg.Pool;
let schema: string;
let drop: () => Promise<void>;
const cleanups: Array<() => Promise<void>> = [];

const countersTable = {
  version: 'test_0001',
  name: 'view_counts',
  sql: 'CREATE TABLE view_counts (story_id bigint PRIMARY KEY, views int NOT NULL);',
};

beforeAll(async () => {
  kafka = testKafka();
  producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  ({ pool, schema, drop } = await newSchema([countersTable]));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await producer.disconnect();
  await drop();
  await deleteTestTopics(kafka);
});

/** The effect under test: one more view for the story, written in the consumer's transaction. */
const countView: EventHandler = async (envelope, client) => {
  if (envelope.payload.case !== 'storyViewed') return;
  await client.query(
    'INSERT INTO view_counts (story_id, views) VALUES ($1, 1) ON CONFLICT (story_id) DO UPDATE SET views = view_counts.views + 1',
    [envelope.payload.value.storyId],
  );
};

async function views(storyId: string): Promise<number> {
  const { rows } = await pool.query<{ views: number }>('SELECT views FROM view_counts WHERE story_id = $1', [storyId]);
  return rows[0]?.views ?? 0;
}

async function startConsumer(topic: string, handle: EventHandler = countView) {
  const consumer = createConsumer({ kafka, groupId: unique('group', '-'), topics: [topic], pool, handle, logger });
  await consumer.start();
  cleanups.push(() => consumer.stop());
  return consumer;
}

function viewedEnvelope(storyId: string): EventEnvelope {
  return create(EventEnvelopeSchema, {
    eventId: randomUUID(),
    type: StoryViewedSchema.typeName,
    occurredAt: timestampNow(),
    key: storyId,
    payload: { case: 'storyViewed', value: { storyId, chapterId: '1' } },
  });
}

async function publish(topic: string, key: string, value: Uint8Array | Buffer): Promise<void> {
  await producer.send({ topic, acks: -1, messages: [{ key, value: Buffer.from(value) }] });
}

describe('EventConsumer', () => {
  it('applies a redelivered event once and survives a record that is not an envelope', async () => {
    const topic = await newTopic(kafka);
    await startConsumer(topic);
    const first = viewedEnvelope('100');
    const second = viewedEnvelope('100');

    await publish(topic, '100', toBinary(EventEnvelopeSchema, first));
    await publish(topic, '100', Buffer.from('definitely not protobuf \xff\xfe'));
    await publish(topic, '100', toBinary(EventEnvelopeSchema, first));
    await publish(topic, '100', toBinary(EventEnvelopeSchema, second));

    // The topic has one partition, so once the last event counted, the duplicate was seen too.
    await waitFor('both distinct events applied', async () => (await views('100')) >= 2);
    expect(await views('100')).toBe(2);
    const { rows } = await pool.query<{ event_id: string }>('SELECT event_id FROM processed_events ORDER BY processed_at');
    expect(rows.map((row) => row.event_id)).toEqual(expect.arrayContaining([first.eventId, second.eventId]));
  });

  it('rolls back the dedupe row with a failed handler, so the event is applied on retry', async () => {
    const topic = await newTopic(kafka);
    let failuresLeft = 1;
    await startConsumer(topic, async (envelope, client, position) => {
      await countView(envelope, client, position);
      if (failuresLeft-- > 0) throw new Error('handler hiccup after writing');
    });
    await publish(topic, '200', toBinary(EventEnvelopeSchema, viewedEnvelope('200')));

    await waitFor('the event applied', async () => (await views('200')) >= 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await views('200')).toBe(1);
  });

  it('sees an event appended in a transaction within a second or so, end to end', async () => {
    const topic = await newTopic(kafka);
    const relay = new OutboxRelay({ pool, schema, kafka, logger });
    await relay.start();
    cleanups.push(() => relay.stop());
    const appliedAt = new Map<string, number>();
    await startConsumer(topic, async (envelope, client, position) => {
      await countView(envelope, client, position);
      appliedAt.set(envelope.eventId, Date.now());
    });

    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const committedAt = Date.now();
      const eventId = await withTransaction(pool, (client) =>
        appendEvent(client, { topic, key: '300', payload: { case: 'storyViewed', value: { storyId: '300', chapterId: '1' } } }),
      );
      await waitFor('the event consumed', () => appliedAt.has(eventId), 10_000);
      latencies.push((appliedAt.get(eventId) ?? Infinity) - committedAt);
    }

    expect(await views('300')).toBe(5);
    // The contract asks for 1 s at p95; this only catches a broken wake-up (e.g. waiting for a poll).
    expect(Math.max(...latencies)).toBeLessThan(3_000);
  });
});

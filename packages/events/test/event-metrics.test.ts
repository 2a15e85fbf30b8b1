import { create, toBinary } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import { StoryViewedSchema } from '@inkwell/proto/stories';
import { randomUUID } from 'node:crypto';
import { Partitioners, type Kafka } from 'kafkajs';
import type pg from 'pg';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, createConsumer, OutboxRelay, registerEventMetrics } from '../src/index.js';
import { deleteTestTopics, logger, newSchema, newTopic, testKafka, unique, waitFor } from './support.js';

let kafka: Kafka;
let pool: pg.Pool;
let schema: string;
let drop: () => Promise<void>;
const registry = new Registry();
let metrics: { close(): Promise<void> };

beforeAll(async () => {
  kafka = testKafka();
  ({ pool, schema, drop } = await newSchema());
  metrics = registerEventMetrics({ registry, pool, schema, kafka, logger });
});

afterAll(async () => {
  await metrics.close();
  await drop();
  await deleteTestTopics(kafka);
});

/** Every sample of `name` in the registry, by its label set. */
async function samples(name: string): Promise<Array<{ labels: Record<string, string | number>; value: number }>> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  return (await metric.get()).values.map((sample) => ({ labels: sample.labels as Record<string, string | number>, value: sample.value }));
}

function viewed(storyId: string) {
  return { storyViewed: { storyId, chapterId: '1' } };
}

describe('outbox backlog metrics', () => {
  it('show the rows not yet relayed and the age of the oldest, and fall to zero once the relay sent them', async () => {
    const topic = await newTopic(kafka);
    for (const storyId of ['1', '2', '3']) await appendEvent(pool, { topic, key: storyId, payload: { case: 'storyViewed', value: viewed(storyId).storyViewed } });
    await pool.query("UPDATE outbox SET created_at = now() - interval '90 seconds' WHERE key = '1'");

    expect(await samples('inkwell_outbox_pending_events')).toEqual([{ labels: { schema }, value: 3 }]);
    const [age] = await samples('inkwell_outbox_oldest_pending_age_seconds');
    expect(age?.labels).toEqual({ schema });
    expect(age?.value).toBeGreaterThanOrEqual(90);
    expect(age?.value).toBeLessThan(120);

    const relay = new OutboxRelay({ pool, schema, kafka, logger });
    await relay.start();
    try {
      await waitFor('the outbox to drain', async () => (await samples('inkwell_outbox_pending_events'))[0]?.value === 0);
      // Readings are reused for a second; the age follows on the next one.
      await waitFor('the oldest age to drop', async () => (await samples('inkwell_outbox_oldest_pending_age_seconds'))[0]?.value === 0, 5_000);
    } finally {
      await relay.stop();
    }
  });
});

describe('consumer lag metrics', () => {
  it("measure a group's records not yet processed, per partition, and zero once it caught up", async () => {
    const topic = await newTopic(kafka);
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const groupId = unique('lag', '-');
    const consumer = createConsumer({ kafka, groupId, topics: [topic], pool, logger, handle: () => gate });
    await consumer.start();
    try {
      const envelope = () => toBinary(EventEnvelopeSchema, create(EventEnvelopeSchema, { eventId: randomUUID(), type: StoryViewedSchema.typeName, occurredAt: timestampNow(), key: '7', payload: { case: 'storyViewed', value: viewed('7').storyViewed } }));
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 5 }, () => ({ key: '7', value: Buffer.from(envelope()) })) });

      const lagOf = async () => (await samples('inkwell_kafka_consumer_lag')).find((sample) => sample.labels.consumergroup === groupId && sample.labels.topic === topic);
      // The handler holds the first record: nothing is committed, all five are behind.
      await waitFor('a lag of 5', async () => (await lagOf())?.value === 5);
      expect((await lagOf())?.labels.partition).toBe('0');

      release();
      await waitFor('the group to catch up', async () => (await lagOf())?.value === 0);
    } finally {
      release();
      await consumer.stop();
      await producer.disconnect();
    }
  });
});

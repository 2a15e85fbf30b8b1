import { randomUUID } from 'node:crypto';
import { fromBinary } from '@bufbuild/protobuf';
import { createLogger } from '@inkwell/logging';
import { createPool, migrate, type Migration } from '@inkwell/pg';
import { EventEnvelopeSchema, type EventEnvelope } from '@inkwell/proto/events';
import type { Consumer, Kafka } from 'kafkajs';
import pg from 'pg';
import { createKafka, ensureTopics, eventsMigrations } from '../src/index.js';

export const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:19092';
export const logger = createLogger('events-test');

/** A name (schema, topic, group) no other test run uses. */
export function unique(prefix: string, separator = '_'): string {
  return `${prefix}${separator}${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

export function testKafka(): Kafka {
  return createKafka({ brokers, clientId: unique('events-test', '-'), logger });
}

const createdTopics: string[] = [];

/** A throwaway topic with one partition, so records keep their order in tests. */
export async function newTopic(kafka: Kafka): Promise<string> {
  const topic = unique('test.events', '.');
  await ensureTopics(kafka, [{ topic, numPartitions: 1 }]);
  createdTopics.push(topic);
  return topic;
}

/** Deletes the topics this test file created, so the local broker does not fill up. */
export async function deleteTestTopics(kafka: Kafka): Promise<void> {
  const topics = createdTopics.splice(0);
  if (topics.length === 0) return;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

/** A fresh schema with the outbox tables and whatever test tables `extra` adds. */
export async function newSchema(extra: Migration[] = []): Promise<{ schema: string; pool: pg.Pool; drop: () => Promise<void> }> {
  const schema = unique('ev');
  const pool = createPool({ connectionString: databaseUrl, schema, max: 6, logger });
  await migrate(pool, { schema, extra: [...eventsMigrations, ...extra], logger });
  return {
    schema,
    pool,
    drop: async () => {
      await pool.end();
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

export interface SeenRecord {
  key: string | undefined;
  headers: Record<string, string>;
  envelope: EventEnvelope;
  receivedAt: number;
}

/** Reads a topic from its beginning into `records` until `stop()`. */
export async function recordTopic(kafka: Kafka, topic: string): Promise<{ records: SeenRecord[]; stop: () => Promise<void> }> {
  const records: SeenRecord[] = [];
  const consumer: Consumer = kafka.consumer({ groupId: unique('reader', '-'), maxWaitTimeInMs: 250 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
      records.push({
        key: message.key?.toString(),
        headers,
        envelope: fromBinary(EventEnvelopeSchema, message.value ?? new Uint8Array()),
        receivedAt: Date.now(),
      });
    },
  });
  return { records, stop: () => consumer.disconnect() };
}

/** Polls `check` until it returns true; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}


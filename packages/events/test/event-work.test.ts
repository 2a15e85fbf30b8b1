import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsumer, createKafka, OutboxRelay, startEventWork } from '../src/index.js';
import { logger, newSchema, unique } from './support.js';

let pool: pg.Pool;
let schema: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ pool, schema, drop } = await newSchema());
});

afterAll(async () => {
  await drop();
});

describe('startEventWork while no broker answers', () => {
  it('stops at once when the service shuts down, without waiting for the connect in flight', async () => {
    // Nothing listens on port 1: every connection is refused, as with a broker that is down.
    const kafka = createKafka({ brokers: '127.0.0.1:1', clientId: unique('event-work-test', '-'), logger });
    const consumer = createConsumer({ kafka, groupId: unique('group', '-'), topics: ['test.events.none'], pool, logger, handle: async () => {} });
    const relay = new OutboxRelay({ pool, kafka, schema, logger });
    let settled = false;
    const work = startEventWork({ kafka, logger, topics: ['test.events.none'], relay, consumers: [consumer] });
    void work.ready.then(() => (settled = true));

    // kafkajs alone spends about 10 s on one refused connect, with its own retries: stopping must
    // not wait for that, or a shutdown while Kafka is down would run into its deadline.
    const stopping = Date.now();
    await work.stop();
    expect(Date.now() - stopping).toBeLessThan(2_000);
    await work.ready;
    expect(settled).toBe(true);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { withTransaction } from '@inkwell/pg';
import { appendEvent, createKafka, ensureTopics, namespaced, OutboxRelay } from '../src/index.js';
import { brokers, deleteTestTopics, logger, newSchema, newTopic, recordTopic, unique, waitFor } from './support.js';

describe('Kafka namespaces', () => {
  const plain = createKafka({ brokers, clientId: unique('events-test', '-'), logger });
  const namespace = `${unique('ns', '-')}.`;
  const scoped = createKafka({ brokers, clientId: unique('events-test', '-'), logger, namespace });

  afterAll(() => deleteTestTopics(plain));

  it('publish an outbox event under the namespaced topic only, so another system on the broker never reads it', async () => {
    const topic = await newTopic(plain);
    const brokerTopic = namespaced(scoped, topic);
    expect(brokerTopic).toBe(`${namespace}${topic}`);
    await ensureTopics(scoped, [{ topic, numPartitions: 1 }]);

    const outsider = await recordTopic(plain, topic);
    const insider = await recordTopic(plain, brokerTopic);
    const { schema, pool, drop } = await newSchema();
    const relay = new OutboxRelay({ pool, schema, kafka: scoped, logger });
    try {
      await relay.start();
      const eventId = await withTransaction(pool, (client) =>
        appendEvent(client, { topic, key: '7', payload: { case: 'userCreated', value: { userId: '7', name: 'ns' } } }),
      );
      await waitFor('the namespaced record', () => insider.records.some((record) => record.envelope.eventId === eventId));
      // A marker sent to the plain topic after that: had the namespaced event gone there too, it
      // would stand before the marker in the topic's one partition.
      const plainOutbox = await newSchema();
      const plainRelay = new OutboxRelay({ pool: plainOutbox.pool, schema: plainOutbox.schema, kafka: plain, logger });
      try {
        await plainRelay.start();
        const markerId = await appendEvent(plainOutbox.pool, { topic, key: '8', payload: { case: 'userCreated', value: { userId: '8', name: 'marker' } } });
        await waitFor('the marker on the plain topic', () => outsider.records.some((record) => record.envelope.eventId === markerId));
        expect(outsider.records.map((record) => record.envelope.eventId)).toEqual([markerId]);
      } finally {
        await plainRelay.stop();
        await plainOutbox.drop();
      }
    } finally {
      await relay.stop();
      await outsider.stop();
      await insider.stop();
      await drop();
      const admin = plain.admin();
      await admin.connect();
      await admin.deleteTopics({ topics: [brokerTopic] }).catch(() => undefined);
      await admin.disconnect();
    }
  });
});

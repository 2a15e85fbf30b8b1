import { afterAll, describe, expect, it } from 'vitest';
import { withTransaction } from '@inkwell/pg';
import { appendEvent, createKafka, ensureTopics, namespaced, OutboxRelay } from '../src/index.js';
import { brokers, deleteTestTopics, logger, newSchema, newTopic, recordTopic, sleep, unique, waitFor } from './support.js';

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
      await sleep(1_500);
      expect(outsider.records).toEqual([]);
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

import { randomUUID } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createKafka, ensureTopics, type EventPayloadInit } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import type { Kafka, Message, Producer } from 'kafkajs';
import { stackEnv } from './stack-env.js';

/** Throwaway Kafka topics of one test file, a producer for them, and a consumer group name. */
export interface TestTopics {
  readonly kafka: Kafka;
  /** The topics, in the order of `labels`, e.g. `test.users.stories.1a2b3c4d`. */
  readonly topics: string[];
  /** A consumer group name no other run uses. */
  readonly groupId: string;
  /** Sends ready-made records (e.g. outbox payloads read back from the database). */
  send(topic: string, messages: Message[]): Promise<void>;
  /** Wraps `payload` in an event envelope (new event id unless given) and sends it; returns the event id. */
  sendEvent(topic: string, key: string, payload: EventPayloadInit, options?: { eventId?: string; occurredAt?: Date }): Promise<string>;
  /** Disconnects the producer and deletes the topics. */
  close(): Promise<void>;
}

/**
 * Creates one single-partition topic per label (so records keep their order) on the stack's
 * broker, for tests that feed a consumer by hand. `name` prefixes topics and the group id.
 */
export async function createTestTopics(name: string, labels: readonly string[]): Promise<TestTopics> {
  const suffix = randomUUID().slice(0, 8);
  const kafka = createKafka({ brokers: stackEnv().kafkaBrokers, clientId: `${name}-${suffix}`, logger: createLogger(name) });
  const topics = labels.map((label) => `test.${name}.${label}.${suffix}`);
  await ensureTopics(kafka, topics.map((topic) => ({ topic, numPartitions: 1 })));
  const producer: Producer = kafka.producer();
  await producer.connect();
  const send = async (topic: string, messages: Message[]) => {
    await producer.send({ topic, messages });
  };
  return {
    kafka,
    topics,
    groupId: `${name}-${suffix}`,
    send,
    async sendEvent(topic, key, payload, options = {}) {
      const eventId = options.eventId ?? randomUUID();
      const envelope = create(EventEnvelopeSchema, {
        eventId,
        key,
        payload,
        ...(options.occurredAt === undefined ? {} : { occurredAt: timestampFromDate(options.occurredAt) }),
      });
      await send(topic, [{ key, value: Buffer.from(toBinary(EventEnvelopeSchema, envelope)) }]);
      return eventId;
    },
    async close() {
      await producer.disconnect();
      const admin = kafka.admin();
      await admin.connect();
      await admin.deleteTopics({ topics }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}

import { randomUUID } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createKafka, ensureTopics, type EventPayloadInit } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import type { Admin, Kafka, Message, Producer } from 'kafkajs';
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
  /**
   * Whether the consumer group `groupId` has committed every record sent to `topic` so far, i.e.
   * has handled them all: the condition to await (with `eventually`) instead of sleeping after a
   * send, e.g. to see that a redelivery changed nothing.
   */
  consumed(topic: string): Promise<boolean>;
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
  const groupId = `${name}-${suffix}`;
  let watcher: Promise<Admin> | undefined;
  const admin = () =>
    (watcher ??= (async () => {
      const connected = kafka.admin();
      await connected.connect();
      return connected;
    })());
  const send = async (topic: string, messages: Message[]) => {
    await producer.send({ topic, messages });
  };
  return {
    kafka,
    topics,
    groupId,
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
    async consumed(topic) {
      const client = await admin();
      const [ends, [committed]] = await Promise.all([client.fetchTopicOffsets(topic), client.fetchOffsets({ groupId, topics: [topic] })]);
      return ends.every(({ partition, high }) => committed?.partitions.find((entry) => entry.partition === partition)?.offset === high);
    },
    async close() {
      if (watcher !== undefined) await (await watcher).disconnect();
      await producer.disconnect();
      const admin = kafka.admin();
      await admin.connect();
      await admin.deleteTopics({ topics }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}

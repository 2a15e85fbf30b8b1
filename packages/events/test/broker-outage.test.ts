import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampNow } from '@bufbuild/protobuf/wkt';
import { createRecordingLogger } from '@inkwell/logging';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import { StoryViewedSchema } from '@inkwell/proto/stories';
import { startTcpProxy, type TcpProxy } from '@inkwell/testing';
import { KafkaJSNonRetriableError, Partitioners, type ISocketFactory, type Kafka, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatchConsumer, createKafka, type EventConsumer } from '../src/index.js';
import { brokers, deleteTestTopics, newTopic, sleep, testKafka, unique, waitFor } from './support.js';

/** How long the broker is away: long enough for kafkajs's consumer to crash and fail to restart. */
const OUTAGE_MS = 15_000;
/**
 * A liveness bound, not a speed target: an event still not applied this long after the broker
 * answers again is what a user notices as broken. With kafkajs's retry and session defaults it
 * took 15 s here (its restart backoff, then the group waiting out the crashed member's session).
 */
const CATCH_UP_BOUND_MS = 10_000;
const broker = brokers.split(',')[0]!.trim();

let direct: Kafka;
let producer: Producer;
let proxy: TcpProxy;
let consumer: EventConsumer | undefined;

beforeAll(async () => {
  direct = testKafka();
  producer = direct.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  proxy = await startTcpProxy();
  proxy.forward(broker);
});

afterAll(async () => {
  await consumer?.stop();
  await proxy?.close();
  await producer?.disconnect();
  await deleteTestTopics(direct);
});

/** Opens every broker connection to `proxy`, whatever address the broker advertises (the local stack has one broker). */
function through(proxy: TcpProxy): ISocketFactory {
  const [host, port] = proxy.address.split(':');
  return ({ onConnect }) => connect({ host, port: Number(port) }, onConnect);
}

/** The offset `groupId` committed on the (only) partition of `topic`, read directly from the broker. */
async function committedOffset(groupId: string, topic: string): Promise<string | undefined> {
  const admin = direct.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return offsets?.partitions[0]?.offset;
  } finally {
    await admin.disconnect();
  }
}

/** A StoryViewed event of `storyId`, as the relay would send it. */
function viewed(storyId: string): Buffer {
  const envelope = create(EventEnvelopeSchema, {
    eventId: randomUUID(),
    type: StoryViewedSchema.typeName,
    occurredAt: timestampNow(),
    key: storyId,
    payload: { case: 'storyViewed', value: { storyId, chapterId: '1' } },
  });
  return Buffer.from(toBinary(EventEnvelopeSchema, envelope));
}

/**
 * A consumer whose every connection to the broker goes through a proxy the test controls: the
 * broker goes away (the proxy cuts the open connections and refuses new ones) long enough for
 * kafkajs's consumer to crash, then answers again (docs/reliability.md, "Consumers after a
 * broker outage"). The test producer talks to the broker directly.
 */
describe('EventConsumer across a broker outage', () => {
  it('applies an event sent after the broker is back within seconds, and logs the outage as warnings', async () => {
    const { logger, lines } = createRecordingLogger('events-test');
    const proxied = createKafka({ brokers: proxy.address, clientId: unique('events-outage-test', '-'), logger, socketFactory: through(proxy) });
    const topic = await newTopic(direct);
    const applied: string[] = [];
    const groupId = unique('group', '-');
    consumer = createBatchConsumer({
      kafka: proxied,
      groupId,
      topics: [topic],
      logger,
      async handleBatch(envelopes) {
        applied.push(...envelopes.map((envelope) => envelope.key));
      },
    });
    await consumer.start();
    await producer.send({ topic, acks: -1, messages: [{ key: '1', value: viewed('1') }] });
    await waitFor('the event sent before the outage applied', () => applied.includes('1'));
    // Its offset is committed after the batch: cut before that, the event would rightly come again.
    await waitFor('the offset of the event sent before the outage committed', () => committedOffset(groupId, topic).then((offset) => offset === '1'));

    const crashes = () => lines.filter((line) => line.msg?.startsWith('Crash:'));
    proxy.refuse();
    // The outage lasts a fixed time, whatever the consumer does meanwhile; it must crash in it.
    await Promise.all([sleep(OUTAGE_MS), waitFor('kafkajs to crash the consumer', () => crashes().length > 0, OUTAGE_MS)]);
    proxy.forward(broker);
    await producer.send({ topic, acks: -1, messages: [{ key: '2', value: viewed('2') }] });

    await waitFor('the event sent after the outage applied', () => applied.includes('2'), CATCH_UP_BOUND_MS);
    expect(applied).toEqual(['1', '2']);
    // An expected, retried outage: each failed attempt is one warning, nothing at error level.
    expect(crashes().map((line) => line.level)).toEqual(crashes().map(() => 'warn'));
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  }, 60_000);

  it('starts again after a crash that kafkajs does not restart (as the group coordinator lost while the broker shuts down)', async () => {
    const { logger, lines } = createRecordingLogger('events-test');
    const kafka = createKafka({ brokers, clientId: unique('events-final-crash-test', '-'), logger });
    // The consumer's first batch fails with an error kafkajs treats as final, as it does with
    // "Failed to find group coordinator" when the broker goes away during a rejoin.
    let crashNext = true;
    const crashingOnce: Kafka = Object.assign(Object.create(kafka) as Kafka, {
      consumer: (config: Parameters<Kafka['consumer']>[0]) => {
        const real = kafka.consumer(config);
        const run = real.run;
        return Object.assign(real, {
          run: (runConfig: Parameters<typeof run>[0]) =>
            run({
              ...runConfig,
              eachBatch: async (payload) => {
                if (crashNext) {
                  crashNext = false;
                  throw new KafkaJSNonRetriableError('injected final crash');
                }
                await runConfig?.eachBatch?.(payload);
              },
            }),
        });
      },
    });
    const topic = await newTopic(direct);
    const applied: string[] = [];
    consumer = createBatchConsumer({
      kafka: crashingOnce,
      groupId: unique('group', '-'),
      topics: [topic],
      logger,
      async handleBatch(envelopes) {
        applied.push(...envelopes.map((envelope) => envelope.key));
      },
    });
    try {
      await consumer.start();
      await producer.send({ topic, acks: -1, messages: [{ key: '1', value: viewed('1') }] });
      await waitFor('kafkajs to crash the consumer for good', () => lines.some((line) => line.msg?.includes('injected final crash')), CATCH_UP_BOUND_MS);
      await producer.send({ topic, acks: -1, messages: [{ key: '2', value: viewed('2') }] });
      await waitFor('both events applied by the consumer started again', () => applied.includes('1') && applied.includes('2'), CATCH_UP_BOUND_MS);
      expect(lines.some((line) => line.level === 'warn' && line.msg === 'kafka consumer crashed with an error kafkajs does not retry; starting it again')).toBe(true);
    } finally {
      await consumer.stop();
      consumer = undefined;
    }
  }, 60_000);

  it('rejoins its group as the member it was after kafkajs restarted it, so the group never waits for a lost member', async () => {
    const { logger } = createRecordingLogger('events-test');
    const proxied = createKafka({ brokers: proxy.address, clientId: unique('events-rejoin-test', '-'), logger, socketFactory: through(proxy) });
    const topic = await newTopic(direct);
    const raw = proxied.consumer({ groupId: unique('group', '-'), sessionTimeout: 10_000 });
    const members: string[] = [];
    let crashes = 0;
    raw.on(raw.events.GROUP_JOIN, ({ payload }) => void members.push(payload.memberId));
    raw.on(raw.events.CRASH, () => void (crashes += 1));
    try {
      await raw.connect();
      await raw.subscribe({ topics: [topic], fromBeginning: true });
      await raw.run({ eachMessage: async () => {} });
      await waitFor('the consumer joined its group', () => members.length === 1);

      proxy.refuse();
      await waitFor('kafkajs to crash the consumer', () => crashes > 0, OUTAGE_MS);
      proxy.forward(broker);

      await waitFor('the restarted consumer joined again', () => members.length === 2, CATCH_UP_BOUND_MS);
      expect(members[1]).toBe(members[0]);
    } finally {
      await raw.disconnect();
    }
  }, 60_000);
});

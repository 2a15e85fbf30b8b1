import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, decodeEnvelope, namespaced } from '@inkwell/events';
import { createGrpcClient, type GrpcClient } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import { UsersService } from '@inkwell/proto/users';
import { createTestUser, dropSchemas, ensureDatabase, eventually, freePort, KeyRing, stackEnv, startProcess, startTcpProxy, type RunningProcess, type TcpProxy } from '@inkwell/testing';
import { as } from './harness.js';

const logger = createLogger('users-kafka-outage-test');

/**
 * The users service as a process whose only way to Kafka is a proxy the test controls: it starts
 * while the proxy refuses every connection (a broker that is down), then the broker comes back
 * (docs/api/foundation.md, "Service start-up and readiness").
 */
describe('users service started while Kafka is unreachable', () => {
  const env = stackEnv();
  const keys = KeyRing.generate();
  const namespace = `t-${randomUUID().slice(0, 8)}.`;
  let proxy: TcpProxy;
  let service: RunningProcess | undefined;
  let client: GrpcClient<typeof UsersService>;
  let address: string;
  let database: pg.Pool;

  beforeAll(async () => {
    const url = await ensureDatabase(env.databaseUrl, 'inkwell_test_users_kafka_outage');
    await dropSchemas(url, ['users']);
    database = new pg.Pool({ connectionString: url, max: 2 });
    proxy = await startTcpProxy();
    address = `127.0.0.1:${await freePort()}`;
    client = createGrpcClient(UsersService, address, { defaultDeadlineMs: 15_000, ...keys.clientOptions('gateway') });
    service = await startProcess({
      name: 'users',
      entry: 'services/users/src/main.ts',
      env: {
        ...keys.env('users'),
        DATABASE_URL: url,
        REDIS_URL: env.redisUrl,
        REDIS_KEY_PREFIX: namespace,
        KAFKA_BROKERS: proxy.address,
        KAFKA_NAMESPACE: namespace,
        USERS_GRPC_PORT: address.split(':')[1]!,
        USERS_METRICS_PORT: '0',
        SEED_DEMO_DATA: 'false',
      },
      ready: () => client.checkHealth(),
    });
  });

  afterAll(async () => {
    client?.close();
    await service?.stop();
    await proxy?.close();
    await database?.end();
  });

  it('serves reads and writes at once, holds the events in its outbox, and sends them when the broker answers', async () => {
    // Ready (gRPC health SERVING) although no connection to Kafka has ever succeeded.
    expect(await client.checkHealth()).toBe(true);

    const user = await createTestUser({ address, signer: keys.signer('gateway') });
    expect((await client.getUser({ id: user.id }, as(undefined))).user?.name).toBe(user.name);
    const pending = await database.query<{ event_id: string; sent: boolean }>('SELECT event_id, sent_at IS NOT NULL AS sent FROM users.outbox WHERE key = $1', [user.id]);
    expect(pending.rows.length).toBeGreaterThan(0);
    expect(pending.rows.every((row) => !row.sent)).toBe(true);
    // The topic set-up and the relay keep trying meanwhile, each failed attempt one short warning
    // (kafkajs's own connection errors, a dozen lines with stacks per attempt, are kept at debug).
    await eventually(() => logLines(service!).some((line) => line.level === 40 && line.msg.includes('retrying')), { timeoutMs: 60_000, intervalMs: 250, what: 'a warning about a failed attempt' });
    expect(proxy.connections).toBeGreaterThan(0);

    proxy.forward(env.kafkaBrokers[0]!);
    const sent = async () => (await database.query<{ unsent: number }>('SELECT count(*)::int AS unsent FROM users.outbox WHERE key = $1 AND sent_at IS NULL', [user.id])).rows[0]!.unsent === 0;
    // The relay backs off by up to 5 s and kafkajs's own connect retries take about 10 s.
    await eventually(sent, { timeoutMs: 60_000, intervalMs: 250, what: "the user's outbox events sent" });

    const created = await readEvent(namespace, Topics.usersUser, pending.rows.map((row) => row.event_id));
    expect(created.payload.case).toBe('userCreated');
    expect(created.key).toBe(user.id);
    expect(logLines(service!).filter((line) => line.level >= 50)).toEqual([]);
  }, 120_000);
});

/** The JSON log lines the process printed so far. */
function logLines(process: RunningProcess): Array<{ level: number; msg: string }> {
  return process
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}

/** Reads `topic` of the namespace from its beginning until one of `eventIds` arrives (20 s at most). */
async function readEvent(namespace: string, topic: string, eventIds: readonly string[]): Promise<EventEnvelope> {
  const kafka = createKafka({ brokers: stackEnv().kafkaBrokers, clientId: 'users-kafka-outage-test', logger, namespace });
  const consumer = kafka.consumer({ groupId: namespaced(kafka, `reader-${randomUUID()}`), maxWaitTimeInMs: 250 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: namespaced(kafka, topic), fromBeginning: true });
    let found: EventEnvelope | undefined;
    await consumer.run({
      eachMessage: async ({ message }) => {
        const envelope = decodeEnvelope(message.value);
        if (envelope !== undefined && eventIds.includes(envelope.eventId)) found ??= envelope;
      },
    });
    await eventually(() => found !== undefined, { timeoutMs: 20_000, what: `one of the events ${eventIds.join(', ')} on ${topic}` });
    return found!;
  } finally {
    await consumer.disconnect();
  }
}

import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { createRecordingLogger } from '@inkwell/logging';
import { logLevel } from 'kafkajs';
import { createKafka, KAFKA_RETRY, kafkaClientConfig, kafkaLogRoute } from './kafka.js';

/** kafkajs's retrier (internal, not in its typings): what every client of `createKafka` retries with. */
const createRetry = createRequire(import.meta.url)('kafkajs/src/retry/index.js') as (options: typeof KAFKA_RETRY) => (attempt: () => Promise<unknown>) => Promise<unknown>;

describe('kafkaClientConfig', () => {
  it('connects in plaintext without authentication when nothing is configured (local dev)', () => {
    expect(kafkaClientConfig({ clientId: 'inkwell-users', brokers: ' a:9092, ,b:9092 ' })).toEqual({ clientId: 'inkwell-users', brokers: ['a:9092', 'b:9092'] });
  });

  it('uses TLS with the system CAs, or trusts exactly the given CA bundle', () => {
    expect(kafkaClientConfig({ clientId: 'c', brokers: ['a:9093'], ssl: {} }).ssl).toBe(true);
    expect(kafkaClientConfig({ clientId: 'c', brokers: ['a:9093'], ssl: { ca: 'PEM' } }).ssl).toEqual({ ca: ['PEM'] });
  });

  it('passes the SASL mechanism and credentials through', () => {
    for (const mechanism of ['plain', 'scram-sha-256', 'scram-sha-512'] as const) {
      expect(kafkaClientConfig({ clientId: 'c', brokers: ['a:9094'], ssl: {}, sasl: { mechanism, username: 'inkwell-stories', password: 'pw' } })).toEqual({
        clientId: 'c',
        brokers: ['a:9094'],
        ssl: true,
        sasl: { mechanism, username: 'inkwell-stories', password: 'pw' },
      });
    }
  });
});

describe('createKafka logs', () => {
  it('logs a consumer crash over a lost broker as one warning, and any other crash as an error', () => {
    const { logger, lines } = createRecordingLogger('events-test');
    const kafkajs = createKafka({ brokers: 'a:9092', clientId: 'c', logger }).logger();
    const lostBroker = 'Crash: KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED 127.0.0.1:9092';
    const refused = 'Crash: KafkaJSProtocolError: Not authorized to access group';

    kafkajs.error(lostBroker, { groupId: 'g', stack: 'a trace' });
    kafkajs.error('Restarting the consumer in 1874ms', { groupId: 'g' });
    kafkajs.error(refused, { groupId: 'g' });

    expect(lines.filter((line) => line.level !== 'debug').map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 'warn', msg: lostBroker },
      { level: 'error', msg: refused },
    ]);
    expect(lines.find((line) => line.msg === lostBroker)?.fields).not.toHaveProperty('stack');
  });
});

describe('kafkaLogRoute', () => {
  const loading = "The coordinator is loading and hence can't process requests for this group";

  it('logs a consumer crash over a group coordinator that is still loading as info without its stack', () => {
    for (const cause of [
      `KafkaJSProtocolError: ${loading}`,
      `KafkaJSNumberOfRetriesExceeded: ${loading}`,
      'KafkaJSProtocolError: The group coordinator is not available',
      'KafkaJSProtocolError: This is not the correct coordinator for this group',
    ]) {
      expect(kafkaLogRoute(logLevel.ERROR, `Crash: ${cause}`), cause).toEqual({ level: 'info', dropStack: true });
    }
  });

  it('logs a request the coordinator refused while loading as info, and other failed requests as errors', () => {
    expect(kafkaLogRoute(logLevel.ERROR, 'Response JoinGroup(key: 11, version: 5)', loading)).toEqual({ level: 'info', dropStack: true });
    expect(kafkaLogRoute(logLevel.ERROR, 'Response OffsetFetch(key: 9, version: 4)', 'The group coordinator is not available')).toEqual({ level: 'info', dropStack: true });
    expect(kafkaLogRoute(logLevel.ERROR, 'Response JoinGroup(key: 11, version: 5)', 'The coordinator is not aware of this member')).toEqual({ level: 'info', dropStack: true });
    expect(kafkaLogRoute(logLevel.ERROR, 'Response JoinGroup(key: 11, version: 5)', 'The group member needs to have a valid member id before actually entering a consumer group')).toEqual({ level: 'error', dropStack: false });
    expect(kafkaLogRoute(logLevel.ERROR, 'Response Produce(key: 0, version: 7)', 'Not authorized to access topics: [Topic authorization failed]')).toEqual({ level: 'error', dropStack: false });
  });

  it('keeps the other routes: connection failures and restarts debug, a lost broker one warning, anything else an error with its stack', () => {
    expect(kafkaLogRoute(logLevel.ERROR, 'Restarting the consumer in 300ms')).toEqual({ level: 'debug', dropStack: true });
    expect(kafkaLogRoute(logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092')).toEqual({ level: 'debug', dropStack: true });
    expect(kafkaLogRoute(logLevel.ERROR, 'Crash: KafkaJSNumberOfRetriesExceeded: Connection timeout')).toEqual({ level: 'warn', dropStack: true });
    expect(kafkaLogRoute(logLevel.ERROR, 'Crash: KafkaJSNonRetriableError: Failed to find group coordinator')).toEqual({ level: 'warn', dropStack: true });
    expect(kafkaLogRoute(logLevel.ERROR, 'Crash: KafkaJSProtocolError: Not authorized to access group')).toEqual({ level: 'error', dropStack: false });
    // The coordinator text elsewhere than in a consumer crash is not the expected start-up condition.
    expect(kafkaLogRoute(logLevel.ERROR, loading)).toEqual({ level: 'error', dropStack: false });
    expect(kafkaLogRoute(logLevel.WARN, 'Limiting retries for the idempotent producer to 5')).toEqual({ level: 'debug', dropStack: false });
    expect(kafkaLogRoute(logLevel.WARN, 'Consumer group received unsubscribed topics')).toEqual({ level: 'warn', dropStack: false });
  });

  it('prints info lines only, without a stack, when a consumer joins while the coordinator is loading', () => {
    const { logger, lines } = createRecordingLogger('events-test');
    const kafkajs = createKafka({ brokers: 'a:9092', clientId: 'c', logger }).logger();
    const crash = `Crash: KafkaJSProtocolError: ${loading}`;
    const response = 'Response JoinGroup(key: 11, version: 5)';
    kafkajs.error(response, { broker: '127.0.0.1:19092', clientId: 'c', error: loading, correlationId: 3, size: 30 });
    kafkajs.error(crash, { groupId: 'g', retryCount: 0, stack: 'KafkaJSProtocolError: …\n    at …' });
    kafkajs.error('Restarting the consumer in 300ms', { groupId: 'g', retryTime: 300 });
    const shown = lines.filter((line) => line.level !== 'debug');
    expect(shown.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: 'info', msg: response },
      { level: 'info', msg: crash },
    ]);
    expect(shown[0]?.fields).toMatchObject({ error: loading });
    expect(shown[1]?.fields).not.toHaveProperty('stack');
    expect(shown[1]?.fields).toMatchObject({ groupId: 'g' });
  });
});

describe('KAFKA_RETRY, the retry policy of every Kafka client', () => {
  it('tries again at most 1 s apart while the broker is away, and fails the operation after five retries', async () => {
    vi.useFakeTimers();
    try {
      const attempts: number[] = [];
      const failing = createRetry(KAFKA_RETRY)(async () => {
        attempts.push(Date.now());
        throw Object.assign(new Error('Connection error: connect ECONNREFUSED'), { retriable: true });
      });
      const outcome = failing.catch((error: unknown) => error);
      await vi.runAllTimersAsync();
      expect(await outcome).toMatchObject({ name: 'KafkaJSNumberOfRetriesExceeded' });
      const gaps = attempts.slice(1).map((at, index) => at - attempts[index]!);
      expect(gaps).toHaveLength(5);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(1_000);
      expect(attempts.at(-1)! - attempts[0]!).toBeLessThan(4_000);
    } finally {
      vi.useRealTimers();
    }
  });
});

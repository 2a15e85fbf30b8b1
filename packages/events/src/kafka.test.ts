import { describe, expect, it } from 'vitest';
import { createRecordingLogger } from '@inkwell/logging';
import { createKafka, kafkaClientConfig } from './kafka.js';

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

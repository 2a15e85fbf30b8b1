import { afterAll, describe, expect, it } from 'vitest';
import { createKafka } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { eventually, stackEnv } from '@inkwell/testing';
import { CacheInvalidationConsumer } from '../src/cache/cache-invalidation.consumer.js';
import { PublicResourceCache } from '../src/cache/public-resource.cache.js';

/** pino's numbers for warn and above. */
const WARN = 40;

describe('the public cache invalidation consumer', () => {
  const lines: Array<{ level: number; text: string }> = [];
  const logger = createLogger('gateway', {
    level: 'info',
    hooks: {
      logMethod(args, method, level) {
        lines.push({ level, text: String(args.find((arg) => typeof arg === 'string') ?? '') });
        method.apply(this, args);
      },
    },
  });
  const kafka = createKafka({ brokers: stackEnv().kafkaBrokers, clientId: 'inkwell-gateway-test', logger, namespace: `cache-stop-${process.pid}-` });
  const cache = new PublicResourceCache({ maxEntries: 10, maxBytes: 1024 * 1024, ttlMs: 1_000 });
  const consumer = new CacheInvalidationConsumer(kafka, cache, logger);

  afterAll(() => consumer.stop());

  it('goes live on its first fetch, and closing turns the cache off with an info line, not a warning', async () => {
    await consumer.start();
    await eventually(() => cache.isLive, { timeoutMs: 60_000, what: 'the cache to go live' });

    await consumer.stop();

    expect(cache.isLive).toBe(false);
    expect(lines.filter((line) => line.level >= WARN).map((line) => line.text)).toEqual([]);
    expect(lines.map((line) => line.text)).toContain('public cache off: the gateway is stopping');
  }, 90_000);
});

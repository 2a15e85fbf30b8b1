import { afterAll, describe, expect, it } from 'vitest';
import { createRedis, pingRedis } from '../src/index.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('createRedis', () => {
  const redis = createRedis(url);
  afterAll(() => redis.quit());

  it('talks to the real Redis', async () => {
    const key = `test:redis:${process.pid}:${Date.now()}`;
    await redis.set(key, 'v', 'EX', 10);
    expect(await redis.get(key)).toBe('v');
    expect(await pingRedis(redis)).toBe(true);
  });

  it('reports an unreachable Redis as not ready instead of hanging', async () => {
    const dead = createRedis('redis://127.0.0.1:1', { lazyConnect: true, retryStrategy: () => null });
    const started = Date.now();
    expect(await pingRedis(dead, 300)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
    dead.disconnect();
  });
});

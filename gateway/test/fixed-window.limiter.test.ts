import { createRedis } from '@inkwell/redis';
import { eventually } from '@inkwell/testing';
import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../src/ratelimit/fixed-window.limiter.js';
import { useTestRedis } from './support/test-redis.js';

const testRedis = useTestRedis('rl');
const { prefix } = testRedis;

describe('FixedWindowLimiter against real Redis', () => {
  it('counts concurrent requests exactly: never more than the allowance gets through', async () => {
    const limiter = new FixedWindowLimiter(testRedis.redis, { windowMs: 60_000, keyPrefix: prefix });
    const windows = await Promise.all(Array.from({ length: 200 }, () => limiter.hit('burst', 150)));
    expect(windows.filter((window) => window?.exceeded === false)).toHaveLength(150);
    expect(windows.filter((window) => window?.exceeded === true)).toHaveLength(50);
    const remaining = windows.map((window) => window?.remaining).sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(remaining[0]).toBe(0);
    expect(remaining.at(-1)).toBe(149);
  });

  it('reports the seconds until the window resets and gives the key an expiry', async () => {
    const limiter = new FixedWindowLimiter(testRedis.redis, { windowMs: 300_000, keyPrefix: prefix });
    const window = await limiter.hit('reset', 10);
    expect(window).toEqual({ limit: 10, remaining: 9, resetSeconds: 300, exceeded: false });
    const ttl = await testRedis.redis.pttl(`${prefix}reset`);
    expect(ttl).toBeGreaterThan(299_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
  });

  it('takes a count back without touching the expiry, never recreating an ended window; reset ends it', async () => {
    const limiter = new FixedWindowLimiter(testRedis.redis, { windowMs: 60_000, keyPrefix: prefix });
    await limiter.hit('refund', 2);
    await limiter.hit('refund', 2);
    await limiter.refund('refund');
    expect(await limiter.hit('refund', 2)).toMatchObject({ remaining: 0, exceeded: false });
    expect(await testRedis.redis.pttl(`${prefix}refund`)).toBeGreaterThan(50_000);
    await limiter.reset('refund');
    expect(await testRedis.redis.exists(`${prefix}refund`)).toBe(0);
    await limiter.refund('refund');
    expect(await testRedis.redis.exists(`${prefix}refund`)).toBe(0);
    expect(await limiter.hit('refund', 2)).toMatchObject({ remaining: 1 });
  });

  it('peeks at a window without counting: exceeded once the allowance is used up', async () => {
    const limiter = new FixedWindowLimiter(testRedis.redis, { windowMs: 60_000, keyPrefix: prefix });
    expect(await limiter.peek('peek', 2)).toEqual({ limit: 2, remaining: 2, resetSeconds: 60, exceeded: false });
    await limiter.hit('peek', 2);
    expect(await limiter.peek('peek', 2)).toMatchObject({ remaining: 1, exceeded: false });
    await limiter.hit('peek', 2);
    expect(await limiter.peek('peek', 2)).toMatchObject({ remaining: 0, exceeded: true });
    expect(await testRedis.redis.get(`${prefix}peek`)).toBe('2');
  });

  it('starts a new window once the old one has expired', async () => {
    const limiter = new FixedWindowLimiter(testRedis.redis, { windowMs: 300, keyPrefix: prefix });
    await limiter.hit('short', 1);
    expect((await limiter.hit('short', 1))?.exceeded).toBe(true);
    // peek does not count: wait for the window to roll over, then the next hit is the first of a new one.
    await eventually(async () => (await limiter.peek('short', 1))?.exceeded === false, { timeoutMs: 5_000, intervalMs: 20, what: 'a new window' });
    expect(await limiter.hit('short', 1)).toMatchObject({ remaining: 0, exceeded: false });
  });

  it('repairs a counter that lost its expiry instead of limiting forever', async () => {
    await testRedis.redis.set(`${prefix}stuck`, '5');
    const limiter = new FixedWindowLimiter(testRedis.redis, { windowMs: 1_000, keyPrefix: prefix });
    expect(await limiter.hit('stuck', 10)).toMatchObject({ remaining: 4, resetSeconds: 1 });
    expect(await testRedis.redis.pttl(`${prefix}stuck`)).toBeGreaterThan(0);
  });

  it('answers undefined at once, without queueing, while Redis is not connected', async () => {
    const offline = createRedis('redis://127.0.0.1:1', { lazyConnect: true });
    const limiter = new FixedWindowLimiter(offline, { windowMs: 1_000, keyPrefix: prefix });
    const started = performance.now();
    expect(await limiter.hit('any', 10)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
    offline.disconnect();
  });
});

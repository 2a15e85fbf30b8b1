import { randomUUID } from 'node:crypto';
import { createRedis, type Redis } from '@inkwell/redis';
import { stackEnv } from '@inkwell/testing';
import { afterAll, beforeAll } from 'vitest';

/** The Redis of one test file, and the key prefix its keys must start with. */
export interface TestRedis {
  /** Connected before the file's first test. */
  readonly redis: Redis;
  /** `test:<name>:<uuid>:`, unique to this run. */
  readonly prefix: string;
}

/**
 * Connects to the stack's Redis before the file's tests and, after them, deletes every key under
 * the returned prefix and disconnects. Call it at the top level of a test file.
 */
export function useTestRedis(name: string): TestRedis {
  let redis: Redis | undefined;
  const prefix = `test:${name}:${randomUUID()}:`;
  beforeAll(async () => {
    redis = createRedis(stackEnv().redisUrl);
    await redis.ping();
  });
  afterAll(async () => {
    if (redis === undefined) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  return {
    get redis() {
      if (redis === undefined) throw new Error('useTestRedis: Redis is connected in beforeAll');
      return redis;
    },
    prefix,
  };
}

import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from '@inkwell/logging';

export type { Redis } from 'ioredis';

/**
 * Creates the Redis client of a process (cursor state, rate limits, caches).
 * Commands fail fast while Redis is unreachable instead of queueing without bound, so a request
 * answers 503 rather than hanging; the client keeps reconnecting in the background, and connection
 * errors go to `logger` (at most one line per 10 s) instead of stderr.
 */
export function createRedis(url: string, options: RedisOptions = {}, logger?: Logger): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    ...options,
  });
  // Without a listener ioredis prints every connection error to stderr; log them once per burst instead.
  let lastLogged = 0;
  redis.on('error', (error: Error) => {
    if (Date.now() - lastLogged < 10_000) return;
    lastLogged = Date.now();
    logger?.warn({ err: error.message }, 'redis connection error');
  });
  return redis;
}

/** True when Redis answers PING within `timeoutMs`; used by readiness checks. */
export async function pingRedis(redis: Redis, timeoutMs = 500): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      redis.ping(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('redis ping timed out')), timeoutMs);
      }),
    ]);
    return answer === 'PONG';
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

import { Redis, type RedisOptions } from 'ioredis';
import { AppError, ErrorCode, isAppError } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';

export type { Redis } from 'ioredis';

/**
 * Where and how to connect: a `redis://` or `rediss://` (TLS) URL, user and password in it for an
 * ACL user, and the CA bundle (PEM text) of a TLS server signed by a private CA. A plain URL
 * string is the same as `{ url }`.
 */
export interface RedisConnection {
  url: string;
  tlsCa?: string;
}

/**
 * The ioredis options a connection adds to the URL's own (host, port, user, password and
 * database come from the URL): for `rediss://`, TLS with the server name checked against the
 * URL's host and the given CA bundle (else the system's CAs); nothing for `redis://`.
 */
export function redisClientOptions(connection: string | RedisConnection): RedisOptions {
  const { url, tlsCa } = typeof connection === 'string' ? { url: connection, tlsCa: undefined } : connection;
  if (!url.startsWith('rediss://')) return {};
  const servername = new URL(url).hostname.replace(/^\[|\]$/g, '');
  return { tls: tlsCa === undefined ? { servername } : { servername, ca: [tlsCa] } };
}

/**
 * Creates the Redis client of a process (cursor state, rate limits, caches), over TLS and as an
 * ACL user when the connection says so (see {@link redisClientOptions}).
 * Commands fail fast while Redis is unreachable instead of queueing without bound, so a request
 * answers 503 rather than hanging; the client keeps reconnecting in the background, and connection
 * errors go to `logger` (at most one line per 10 s) instead of stderr.
 */
export function createRedis(connection: string | RedisConnection, options: RedisOptions = {}, logger?: Logger): Redis {
  const url = typeof connection === 'string' ? connection : connection.url;
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    ...redisClientOptions(connection),
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

/**
 * Runs `command` (a store's Redis calls) and turns whatever the client throws into an AppError
 * UNAVAILABLE "<store> is unavailable." (a 503 with Retry-After at the edge); an AppError thrown
 * inside `command` passes through unchanged.
 */
export async function withRedisErrors<T>(store: string, command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (cause) {
    if (isAppError(cause)) throw cause;
    throw new AppError(ErrorCode.UNAVAILABLE, `The ${store} is unavailable.`, { cause });
  }
}

export { luaScript } from './lua-script.js';
export { Generations } from './generations.js';

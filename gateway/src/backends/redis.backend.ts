import type { Logger } from '@inkwell/logging';
import { createRedis, type Redis, type RedisConnection } from '@inkwell/redis';

/**
 * The gateway's Redis client (rate limits, cursors and caches use it), with auto-pipelining. It
 * connects in the background and keeps reconnecting; instead of one log line per failed attempt it logs when
 * Redis goes down and when it is back (readiness reports it meanwhile). Every key it touches
 * starts with `keyPrefix` (REDIS_KEY_PREFIX; empty in production). `connection` is REDIS_URL with
 * REDIS_TLS_CA_FILE (`rediss://`, ACL user in the URL; docs/api/foundation.md, "Stores and least privilege").
 */
export function createGatewayRedis(connection: RedisConnection, logger: Logger, keyPrefix = ''): Redis {
  // Commands issued in the same tick (many requests in flight each asking for their rate-limit
  // window) leave as one write: fewer syscalls on both sides of the connection.
  const redis = createRedis(connection, { enableAutoPipelining: true, keyPrefix });
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: error }, 'redis is unreachable; retrying in the background');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info('redis is reachable again');
  });
  return redis;
}

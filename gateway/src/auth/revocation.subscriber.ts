import { decodeRevocationNotice, REVOCATION_CHANNEL } from '@inkwell/auth-tokens';
import type { Logger } from '@inkwell/logging';
import type { Redis } from '@inkwell/redis';

/** What the subscriber tells about revocations. */
export interface RevocationListener {
  /** These token hashes were revoked. */
  revoked(hashes: readonly string[]): void;
  /** Notices may have been missed (the subscription was down): forget every cached token. */
  gap(): void;
}

/** A running subscription; `close` ends its connection. */
export interface RevocationSubscription {
  /** Resolves once the first SUBSCRIBE was acknowledged (tests wait for it). */
  readonly subscribed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Subscribes one dedicated connection per process (a duplicate of `redis`: a subscribing
 * connection can do nothing else) to REVOCATION_CHANNEL and reports every notice to `listener`.
 * Pub/sub delivers only while connected, so after every reconnection the subscription is renewed
 * and `listener.gap()` is called: the cache then starts empty, and a revoked token cannot outlive
 * a Redis outage by more than the time to reconnect. Malformed notices are ignored.
 */
export function subscribeToRevocations(redis: Redis, listener: RevocationListener, logger: Logger): RevocationSubscription {
  const subscriber = redis.duplicate({ autoResubscribe: false, enableOfflineQueue: false, maxRetriesPerRequest: null });
  let connectedBefore = false;
  let resolveSubscribed: () => void = () => undefined;
  const subscribed = new Promise<void>((resolve) => {
    resolveSubscribed = resolve;
  });

  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== REVOCATION_CHANNEL) return;
    const { tokenHashes } = decodeRevocationNotice(message);
    if (tokenHashes.length > 0) listener.revoked(tokenHashes);
  });
  subscriber.on('ready', () => {
    if (connectedBefore) {
      listener.gap();
      logger.info('revocation channel reconnected; token cache cleared');
    }
    connectedBefore = true;
    subscriber.subscribe(REVOCATION_CHANNEL).then(
      () => resolveSubscribed(),
      (error: unknown) => logger.warn({ err: error }, 'subscribing to the revocation channel failed; retrying on the next reconnection'),
    );
  });
  subscriber.on('error', () => {
    // Connection errors are reported by the main client (createGatewayRedis); ioredis only needs a listener.
  });

  return {
    subscribed,
    async close() {
      try {
        await subscriber.quit();
      } catch {
        subscriber.disconnect();
      }
    },
  };
}

import { encodeRevocationNotice, REVOCATION_CHANNEL } from '@inkwell/auth-tokens';
import type { Logger } from '@inkwell/logging';
import type { Redis } from '@inkwell/redis';

/** Announces revoked access tokens to every gateway. */
export interface RevocationNotifier {
  /** Publishes the hashes; never throws (a failed notice is logged: gateways' cache TTL still bounds it). */
  notify(tokenHashes: readonly string[]): Promise<void>;
}

/** Largest number of hashes per message (keeps messages well below Redis and subscriber limits). */
const HASHES_PER_MESSAGE = 500;

/**
 * Publishes revocation notices on the Redis pub/sub channel REVOCATION_CHANNEL as
 * `{ "tokenHashes": [...] }`. Gateways subscribe and drop those tokens from their caches.
 */
export class RedisRevocationNotifier implements RevocationNotifier {
  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  async notify(tokenHashes: readonly string[]): Promise<void> {
    for (let start = 0; start < tokenHashes.length; start += HASHES_PER_MESSAGE) {
      const batch = tokenHashes.slice(start, start + HASHES_PER_MESSAGE);
      try {
        await this.redis.publish(REVOCATION_CHANNEL, encodeRevocationNotice(batch));
      } catch (error) {
        this.logger.error({ err: error, tokens: batch.length }, 'could not publish a token revocation notice; gateways drop the tokens when their cache entries expire');
      }
    }
  }
}

import { withRedisErrors, type Redis } from '@inkwell/redis';
import { IDEMPOTENCY_TTL_SECONDS } from './idempotency.rules.js';

/** A finished answer kept for replay: status, the headers that matter (e.g. Location) and the body. */
export interface StoredAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON document; undefined for a 204. */
  readonly document?: unknown;
}

/** What a key holds: a request still running, or the answer it gave; both with the request's fingerprint. */
export type IdempotencyRecord = { readonly state: 'running'; readonly fingerprint: string } | { readonly state: 'done'; readonly fingerprint: string; readonly answer: StoredAnswer };

/** Settings of the store. */
export interface IdempotencyStoreOptions {
  /** How long an answer is kept (24 hours in production). */
  readonly ttlSeconds?: number;
  /** How long a running request holds its key if it never finishes (the gateway crashed). */
  readonly lockSeconds?: number;
  /** Redis key prefix (default `inkwell:idem:`), after the system's REDIS_KEY_PREFIX. */
  readonly keyPrefix?: string;
}

/**
 * Idempotency keys in Redis (docs/api/foundation.md, "Idempotent POSTs"): `begin` claims a key for
 * a request atomically (SET NX) or returns what the key already holds; `finish` replaces the
 * claim with the answer for `ttlSeconds`; `abandon` drops the claim (a 5xx answer, so that a
 * retry runs again). Redis failures are 503 `unavailable`.
 */
export class IdempotencyStore {
  readonly #redis: Redis;
  readonly #ttlSeconds: number;
  readonly #lockSeconds: number;
  readonly #prefix: string;

  constructor(redis: Redis, options: IdempotencyStoreOptions = {}) {
    this.#redis = redis;
    this.#ttlSeconds = options.ttlSeconds ?? IDEMPOTENCY_TTL_SECONDS;
    this.#lockSeconds = options.lockSeconds ?? 120;
    this.#prefix = options.keyPrefix ?? 'inkwell:idem:';
  }

  /** The Redis key of an (owner, key) pair; both parts are already hashed or bounded by the caller. */
  key(owner: string, key: string): string {
    return `${this.#prefix}${owner}:${key}`;
  }

  /** Claims `key` for a request with `fingerprint`; undefined when claimed, else the record already there. */
  async begin(key: string, fingerprint: string): Promise<IdempotencyRecord | undefined> {
    const running = JSON.stringify({ state: 'running', fingerprint } satisfies IdempotencyRecord);
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await withRedisErrors('idempotency store', () => this.#redis.set(key, running, 'EX', this.#lockSeconds, 'NX'));
      if (claimed === 'OK') return undefined;
      const text = await withRedisErrors('idempotency store', () => this.#redis.get(key));
      // Gone between the two calls (abandoned or expired): try to claim it again.
      if (text !== null) return JSON.parse(text) as IdempotencyRecord;
    }
    return { state: 'running', fingerprint };
  }

  /** Keeps the answer of the request that claimed `key`. */
  async finish(key: string, fingerprint: string, answer: StoredAnswer): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', fingerprint, answer };
    await withRedisErrors('idempotency store', () => this.#redis.set(key, JSON.stringify(record), 'EX', this.#ttlSeconds));
  }

  /** Releases `key` without an answer. */
  async abandon(key: string): Promise<void> {
    await withRedisErrors('idempotency store', () => this.#redis.del(key));
  }
}

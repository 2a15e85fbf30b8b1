import { luaScript, type Redis } from '@inkwell/redis';

/**
 * One atomic step of a fixed window: count the request, start the window's clock if this is its
 * first request (or if the key somehow lost its expiry), and report the count and the
 * milliseconds until the window ends. One round trip (EVALSHA; ioredis falls back to EVAL when
 * Redis does not know the script yet).
 */
const FIXED_WINDOW_LUA = `
local count = redis.call('INCR', KEYS[1])
local ttl = -1
if count > 1 then ttl = redis.call('PTTL', KEYS[1]) end
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;

/** Takes one count back if the window still exists (never creates a key, keeps its expiry). */
const REFUND_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0
`;

const COMMAND = 'inkwellFixedWindow';
const REFUND_COMMAND = 'inkwellFixedWindowRefund';

type FixedWindowCommand = (key: string, windowMs: number) => Promise<[number, number]>;
type RefundCommand = (key: string) => Promise<number>;

/** The state of one window after counting a request. */
export interface RateLimitWindow {
  /** The window's allowance. */
  readonly limit: number;
  /** Requests left in the window after this one (never negative). */
  readonly remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  readonly resetSeconds: number;
  /** This request is over the allowance. */
  readonly exceeded: boolean;
}

/** Options of {@link FixedWindowLimiter}. */
export interface FixedWindowOptions {
  /** Length of a window in milliseconds. */
  readonly windowMs: number;
  /** Prefix of every Redis key (e.g. `inkwell:rl:`). */
  readonly keyPrefix: string;
}

/**
 * Fixed-window rate limiting in Redis (docs/api/auth.md, "Rate limits"). A window starts with the first request of
 * its key and lasts `windowMs`; every request in it increments one counter. The counter and its
 * expiry are changed by one Lua script, so concurrent gateways never lose counts and a key never
 * lives without an expiry.
 *
 * When Redis is not connected `hit` answers `undefined` at once, without queueing a command: the
 * caller decides what an unknown count means (the gateway fails open).
 */
export class FixedWindowLimiter {
  readonly #redis: Redis;
  readonly #windowMs: number;
  readonly #keyPrefix: string;
  readonly #command: FixedWindowCommand;
  readonly #refund: RefundCommand;

  constructor(redis: Redis, options: FixedWindowOptions) {
    this.#redis = redis;
    this.#windowMs = options.windowMs;
    this.#keyPrefix = options.keyPrefix;
    this.#command = luaScript<[number, number]>(redis, COMMAND, 1, FIXED_WINDOW_LUA) as FixedWindowCommand;
    this.#refund = luaScript<number>(redis, REFUND_COMMAND, 1, REFUND_LUA) as RefundCommand;
  }

  /**
   * Counts one request against the window of `key` with allowance `limit`. Resolves `undefined`
   * when Redis is not ready; rejects when the command fails (a timeout or a Redis error).
   */
  async hit(key: string, limit: number): Promise<RateLimitWindow | undefined> {
    if (this.#redis.status !== 'ready') return undefined;
    const [count, ttlMs] = await this.#command(this.#keyPrefix + key, this.#windowMs);
    return {
      limit,
      remaining: count >= limit ? 0 : limit - count,
      resetSeconds: ttlMs <= 1_000 ? 1 : Math.ceil(ttlMs / 1_000),
      exceeded: count > limit,
    };
  }

  /**
   * The window of `key` without counting a request: `exceeded` once `limit` requests were
   * counted in it (the next one would be refused). A window that has not started is empty, with
   * the full window length ahead. Resolves `undefined` when Redis is not ready.
   */
  async peek(key: string, limit: number): Promise<RateLimitWindow | undefined> {
    if (this.#redis.status !== 'ready') return undefined;
    const fullKey = this.#keyPrefix + key;
    const [count, ttlMs] = await Promise.all([this.#redis.get(fullKey), this.#redis.pttl(fullKey)]);
    const used = count === null ? 0 : Number(count);
    const left = ttlMs > 0 ? ttlMs : this.#windowMs;
    return { limit, remaining: Math.max(limit - used, 0), resetSeconds: left <= 1_000 ? 1 : Math.ceil(left / 1_000), exceeded: used >= limit };
  }

  /**
   * Takes back one request counted on `key` (it turned out to belong to another window, e.g. a
   * token that was valid after all). Does nothing when the window has ended or Redis is not ready.
   */
  async refund(key: string): Promise<void> {
    if (this.#redis.status !== 'ready') return;
    await this.#refund(this.#keyPrefix + key);
  }

  /** Ends the window of `key` at once (e.g. a success clears a failure count). Does nothing when Redis is not ready. */
  async reset(key: string): Promise<void> {
    if (this.#redis.status !== 'ready') return;
    await this.#redis.del(this.#keyPrefix + key);
  }
}

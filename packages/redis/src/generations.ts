import type { Redis } from 'ioredis';
import { luaScript } from './lua-script.js';

/** Bumps a generation and keeps it for `ARGV[1]` seconds: longer than any entry read in it can live. */
const BUMP_LUA = `
local generation = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return generation
`;
const BUMP_COMMAND = 'inkwellGenerationBump';
type BumpCommand = (key: string, ttlSeconds: number) => Promise<number>;

/**
 * Generations of cached values, shared by every process through Redis: a writer bumps the
 * generation of what it changed before it answers, and a process serves its in-memory copy of a
 * value only while the generation it was read in is still current. So a change made through one
 * process is never served stale by another on the very next request, without waiting for an
 * event. While Redis cannot answer, `current` is undefined: callers read through.
 *
 * `namespace` names the kind of value (`cache-generation`, `relations-generation`); a key is
 * kept twice as long as the longest an entry may live (`entryTtlMs`), so it never expires while a
 * copy read in an older generation could still be served.
 */
export class Generations {
  readonly #redis: Redis;
  readonly #ttlSeconds: number;
  readonly #prefix: string;
  readonly #bump: BumpCommand;

  constructor(redis: Redis, namespace: string, entryTtlMs: number) {
    this.#redis = redis;
    this.#prefix = `inkwell:${namespace}:`;
    this.#ttlSeconds = Math.max(2, Math.ceil((2 * entryTtlMs) / 1_000));
    this.#bump = luaScript<number>(redis, BUMP_COMMAND, 1, BUMP_LUA) as BumpCommand;
  }

  /** The current generation of `key` ('0' before any bump), or undefined when Redis cannot tell. */
  async current(key: string): Promise<string | undefined> {
    if (this.#redis.status !== 'ready') return undefined;
    try {
      return (await this.#redis.get(this.#prefix + key)) ?? '0';
    } catch {
      return undefined;
    }
  }

  /** The current generations of `keys` in one round trip (same order, '0' before any bump), or undefined when Redis cannot tell. */
  async currentMany(keys: readonly string[]): Promise<string[] | undefined> {
    if (keys.length === 0) return [];
    if (this.#redis.status !== 'ready') return undefined;
    try {
      return (await this.#redis.mget(keys.map((key) => this.#prefix + key))).map((generation) => generation ?? '0');
    } catch {
      return undefined;
    }
  }

  /** Starts a new generation of `key`: copies read before it are no longer served. Throws when Redis fails. */
  async bump(key: string): Promise<void> {
    await this.#bump(this.#prefix + key, this.#ttlSeconds);
  }
}

import { luaScript, type Redis } from '@inkwell/redis';
import type { CacheKey } from './public-resource.cache.js';

/** Bumps a generation and keeps it for `ARGV[1]` seconds: longer than any entry can live. */
const BUMP_LUA = `
local generation = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return generation
`;
const BUMP_COMMAND = 'inkwellCacheGenerationBump';
type BumpCommand = (key: string, ttlSeconds: number) => Promise<number>;

/**
 * The generation of each public cache entry, shared by every gateway through Redis
 * (docs/api/foundation.md, "Caching at the edge"): a write through any gateway bumps the
 * generation of the story or user it changed before it answers, and a cached entry is served only
 * while its generation is still current. So a story unpublished or deleted through one gateway is
 * never served from another's cache on the very next request, whether or not the change's event
 * has arrived. While Redis cannot answer, `current` is undefined and the cache is not used.
 */
export class CacheGenerations {
  readonly #redis: Redis;
  readonly #ttlSeconds: number;
  readonly #bump: BumpCommand;

  /** `entryTtlMs`: the longest an entry lives; generations are kept twice as long. */
  constructor(redis: Redis, entryTtlMs: number) {
    this.#redis = redis;
    this.#ttlSeconds = Math.max(2, Math.ceil((2 * entryTtlMs) / 1_000));
    this.#bump = luaScript<number>(redis, BUMP_COMMAND, 1, BUMP_LUA) as BumpCommand;
  }

  /** The current generation of `key` ('0' before any write), or undefined when Redis cannot tell. */
  async current(key: CacheKey): Promise<string | undefined> {
    if (this.#redis.status !== 'ready') return undefined;
    try {
      return (await this.#redis.get(generationKey(key))) ?? '0';
    } catch {
      return undefined;
    }
  }

  /** The current generations of `keys` in one round trip (same order, '0' before any write), or undefined when Redis cannot tell. */
  async currentMany(keys: readonly CacheKey[]): Promise<string[] | undefined> {
    if (keys.length === 0) return [];
    if (this.#redis.status !== 'ready') return undefined;
    try {
      return (await this.#redis.mget(keys.map(generationKey))).map((generation) => generation ?? '0');
    } catch {
      return undefined;
    }
  }

  /** Starts a new generation of `key`: entries stored before it are no longer served. */
  async bump(key: CacheKey): Promise<void> {
    await this.#bump(generationKey(key), this.#ttlSeconds);
  }
}

function generationKey(key: CacheKey): string {
  return `inkwell:cache-generation:${key}`;
}

import { Generations, type Redis } from '@inkwell/redis';
import { Gauge, type Registry } from 'prom-client';
import { BoundedEntries } from '@inkwell/limits';

/** What the cache keeps: the public representation of one entity (`story:<id>`, `user:<id>`). */
export type CacheKey = `${'story' | 'user'}:${string}`;

/**
 * The generations of the public cache's entries in Redis, shared by every gateway
 * (docs/api/foundation.md, "Caching at the edge"): a write bumps the story or user it changed
 * before it answers; `ttlMs` is the cache's entry TTL.
 */
export function publicCacheGenerations(redis: Redis, ttlMs: number): Generations {
  return new Generations(redis, 'cache-generation', ttlMs);
}

/** Options of {@link PublicResourceCache}. */
export interface PublicResourceCacheOptions {
  /** Most entries held; the least recently stored go first. */
  readonly maxEntries: number;
  /** Most bytes of entries held (approximate), likewise. */
  readonly maxBytes: number;
  /** The safety net: an entry is never served older than this, even if an invalidation was lost. */
  readonly ttlMs: number;
  /** The clock (tests pass their own). */
  readonly now?: () => number;
}

/** An entry with the generation it was read in. */
interface Generational {
  readonly value: unknown;
  readonly generation: string;
}

/**
 * The gateway's in-process cache of public, caller-independent representations (the published
 * story, a user's public profile; docs/api/foundation.md, "Caching at the edge"). It serves only
 * while it is `live`, i.e. while this process's invalidation consumer is subscribed: before that,
 * and whenever the consumer stops, it is emptied and every read goes to the backend.
 *
 * A fill races with invalidations: a value fetched before an invalidation of its key must not be
 * stored after it. `begin()` hands out a ticket; `store(key, value, ticket)` drops the value when
 * the key (or the whole cache) was invalidated since the ticket was taken.
 */
export class PublicResourceCache {
  private readonly entries: BoundedEntries<CacheKey, unknown>;
  /** Sequence number of the last invalidation of each key (pruned to bounded size via `floor`). */
  private readonly invalidated = new Map<CacheKey, number>();
  private sequence = 0;
  /** Tickets at or below this are refused for every key (after `clear()` or pruning). */
  private floor = 0;
  private live = false;
  private readonly now: () => number;

  constructor(private readonly options: PublicResourceCacheOptions) {
    this.now = options.now ?? Date.now;
    this.entries = new BoundedEntries(options);
  }

  /** Whether entries are served and stored (the invalidation feed is running). */
  get isLive(): boolean {
    return this.live;
  }

  /** Number of entries held (for metrics and tests). */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of the entries held (for metrics and tests). */
  get bytes(): number {
    return this.entries.bytes;
  }

  /** Starts (true) or stops (false) serving; both empty the cache, since invalidations may have been missed. */
  setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }

  /** The entry of `key` when live, younger than the TTL and stored in `generation` (see Generations in @inkwell/redis); undefined otherwise. */
  get<T>(key: CacheKey, generation: string): T | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(key, this.now()) as Generational | undefined;
    return entry?.generation === generation ? (entry.value as T) : undefined;
  }

  /** A ticket for a fill that starts now (see the class comment). */
  begin(): number {
    return this.sequence;
  }

  /** Stores `value` of `generation` unless not live or `key` was invalidated since `ticket` was taken. */
  store(key: CacheKey, value: unknown, ticket: number, generation: string): void {
    if (!this.live || ticket < this.floor || (this.invalidated.get(key) ?? -1) > ticket) return;
    const now = this.now();
    this.entries.set(key, { value, generation } satisfies Generational, now + this.options.ttlMs, now);
  }

  /** Drops `key` and refuses fills of it that started before now. */
  invalidate(key: CacheKey): void {
    this.sequence++;
    this.entries.delete(key);
    this.invalidated.set(key, this.sequence);
    // Bounded memory: forgetting per-key sequences is safe once every older ticket is refused.
    if (this.invalidated.size > this.options.maxEntries) {
      this.invalidated.clear();
      this.floor = this.sequence;
    }
  }

  /** Drops everything and refuses every fill that started before now. */
  clear(): void {
    this.sequence++;
    this.floor = this.sequence;
    this.entries.clear();
    this.invalidated.clear();
  }
}

/**
 * Exports the cache's state on /metrics: `gateway_public_cache_live` (1 while served, i.e. the
 * invalidation consumer is fetching), `gateway_public_cache_entries` and `gateway_public_cache_bytes`.
 */
export function registerPublicCacheMetrics(cache: PublicResourceCache, registry: Registry): void {
  new Gauge({
    name: 'gateway_public_cache_live',
    help: '1 while the public cache is served (its invalidation consumer is fetching), else 0.',
    registers: [registry],
    collect() {
      this.set(cache.isLive ? 1 : 0);
    },
  });
  new Gauge({
    name: 'gateway_public_cache_entries',
    help: 'Entries held by the public cache.',
    registers: [registry],
    collect() {
      this.set(cache.size);
    },
  });
  new Gauge({
    name: 'gateway_public_cache_bytes',
    help: 'Approximate bytes held by the public cache.',
    registers: [registry],
    collect() {
      this.set(cache.bytes);
    },
  });
}

import { Gauge, type Registry } from 'prom-client';

/** Options of {@link ListAnswerCache}. */
export interface ListAnswerCacheOptions {
  /** How long an answer is served after it was fetched; what it adds to a list's staleness. */
  readonly ttlMs: number;
  /** Most answers held at once (the oldest go first). */
  readonly maxEntries: number;
  /** The clock (tests pass their own). */
  readonly now?: () => number;
}

interface Entry<T> {
  readonly value: T;
  readonly expiresAt: number;
}

/**
 * Caller-independent list answers (a page of the browse list), kept for a fixed short time
 * (docs/api/foundation.md, "Caching at the edge"): no invalidation, so an answer is never older
 * than `ttlMs` plus the age of what the backend answered. Concurrent misses of one key share
 * one backend call; an answer personal to its caller (e.g. fetched by the author of a story on
 * it) is neither stored nor handed to the callers who waited for it: they call the backend
 * themselves.
 */
export class ListAnswerCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Calls under way, with whether their answer may be shared (decided by their own caller). */
  private readonly inFlight = new Map<string, Promise<{ value: T; shared: boolean }>>();
  private readonly now: () => number;

  constructor(private readonly options: ListAnswerCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Number of answers held (for metrics and tests). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The answer of `key` for one caller. `personal(value)` says whether this caller's view of an
   * answer differs from everyone's (e.g. they are the author of a story on it): then they never
   * get a shared answer and an answer fetched for them is not shared. Otherwise: a stored answer
   * younger than the TTL, else the answer of a call for the same key already under way (if not
   * personal to its own caller), else `fetch()`'s, which is stored. Errors are never stored;
   * callers who waited for a failed call get its error.
   */
  async get(key: string, fetch: () => Promise<T>, personal: (value: T) => boolean): Promise<T> {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      if (entry.expiresAt > this.now()) return personal(entry.value) ? fetch() : entry.value;
      this.entries.delete(key);
    }
    const pending = this.inFlight.get(key);
    if (pending !== undefined) {
      const { value, shared } = await pending;
      return shared && !personal(value) ? value : fetch();
    }
    const call = fetch().then((value) => ({ value, shared: !personal(value) }));
    this.inFlight.set(key, call);
    try {
      const { value, shared } = await call;
      if (shared) this.store(key, value);
      return value;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private store(key: string, value: T): void {
    const now = this.now();
    // Entries share one TTL, so the oldest stored expire first: drop them from the front.
    for (const [oldest, entry] of this.entries) {
      if (entry.expiresAt > now && this.entries.size < this.options.maxEntries) break;
      this.entries.delete(oldest);
    }
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + this.options.ttlMs });
  }
}

/** Exports `gateway_public_list_cache_entries` (browse answers held) on /metrics. */
export function registerListCacheMetrics(cache: ListAnswerCache<unknown>, registry: Registry): void {
  new Gauge({
    name: 'gateway_public_list_cache_entries',
    help: 'Browse-list answers held by the short-lived list cache.',
    registers: [registry],
    collect() {
      this.set(cache.size);
    },
  });
}

import { Gauge, type Registry } from 'prom-client';
import { BoundedEntries } from '@inkwell/limits';

/** Options of {@link ListAnswerCache}. */
export interface ListAnswerCacheOptions {
  /** How long an answer is served after it was fetched; what it adds to a list's staleness. */
  readonly ttlMs: number;
  /** Most answers held at once (the oldest go first). */
  readonly maxEntries: number;
  /** Most bytes of answers held at once (approximate), likewise. */
  readonly maxBytes: number;
  /** The clock (tests pass their own). */
  readonly now?: () => number;
}

/**
 * Caller-independent list answers (a page of the browse list), kept for a fixed short time
 * (docs/api/foundation.md, "Caching at the edge"): no invalidation, so an answer is never older
 * than `ttlMs` plus the age of what the backend answered. Concurrent misses of one key share
 * one backend call; an answer personal to its caller (e.g. fetched by the author of a story on
 * it) is neither stored nor handed to the callers who waited for it: they call the backend
 * themselves. `clear()` drops every answer at once, for what must not wait out the TTL (content
 * withdrawn from the public).
 */
export class ListAnswerCache<T> {
  private readonly entries: BoundedEntries<string, T>;
  /** Calls under way, with whether their answer may be shared (decided by their own caller). */
  private readonly inFlight = new Map<string, Promise<{ value: T; shared: boolean }>>();
  private readonly now: () => number;
  /** Raised by clear(): an answer fetched under an older one is not stored. */
  private generation = 0;

  constructor(private readonly options: ListAnswerCacheOptions) {
    this.now = options.now ?? Date.now;
    this.entries = new BoundedEntries(options);
  }

  /** Number of answers held (for metrics and tests). */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of the answers held (approximate; for tests). */
  get bytes(): number {
    return this.entries.bytes;
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
    const stored = this.entries.get(key, this.now());
    if (stored !== undefined) return personal(stored) ? fetch() : stored;
    const pending = this.inFlight.get(key);
    if (pending !== undefined) {
      const { value, shared } = await pending;
      return shared && !personal(value) ? value : fetch();
    }
    const generation = this.generation;
    const call = fetch().then((value) => ({ value, shared: !personal(value) }));
    this.inFlight.set(key, call);
    try {
      const { value, shared } = await call;
      if (shared && generation === this.generation) {
        const now = this.now();
        this.entries.set(key, value, now + this.options.ttlMs, now);
      }
      return value;
    } finally {
      if (this.inFlight.get(key) === call) this.inFlight.delete(key);
    }
  }

  /** Drops every answer held; calls under way are neither stored nor shared with later callers. */
  clear(): void {
    this.generation++;
    this.entries.clear();
    this.inFlight.clear();
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

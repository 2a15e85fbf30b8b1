/**
 * A bounded, time-limited LRU map from token hashes to what the gateway knows about them. Every
 * entry carries its own deadline (`until`, epoch ms): the cache TTL, or the token's expiry when
 * that comes first, so an expired token is never served from the cache. A `get` of an entry past
 * its deadline deletes it. Inserting beyond `maxEntries` evicts the least recently used entry.
 *
 * It is a Map, whose iteration order is insertion order: a hit moves the entry to the end
 * (delete + set), so the first key is always the least recently used one.
 */
export class TokenCache<V> {
  readonly #entries = new Map<string, { value: V; until: number }>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error('a token cache holds at least one entry');
    this.#maxEntries = maxEntries;
  }

  /** The value stored for `key` if its deadline is still ahead of `now` (epoch ms). */
  get(key: string, now: number): V | undefined {
    const entries = this.#entries;
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    entries.delete(key);
    if (entry.until <= now) return undefined;
    entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` until `until` (epoch ms); a deadline already past stores nothing. */
  set(key: string, value: V, until: number, now: number): void {
    const entries = this.#entries;
    entries.delete(key);
    if (until <= now) return;
    if (entries.size >= this.#maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done !== true) entries.delete(oldest.value);
    }
    entries.set(key, { value, until });
  }

  /** Forgets `key` (a revoked token); returns whether it was cached. */
  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  /** Forgets everything (e.g. after revocation messages may have been missed). */
  clear(): void {
    this.#entries.clear();
  }

  /** Number of entries, including ones whose deadline passed but were not looked up since. */
  get size(): number {
    return this.#entries.size;
  }
}

import { approximateBytes } from './budgets.js';

/** The bounds of a {@link BoundedEntries}: how many values and how many bytes of them it holds. */
export interface EntryBounds {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
  readonly bytes: number;
}

/**
 * The store behind the gateway's caches and the caches of caller assertions: values with an
 * expiry, bounded both in number and in bytes (docs/api/foundation.md, "Byte budgets"), the oldest
 * stored dropped first, and those expired before any others. A value larger
 * than an eighth of the byte bound is not kept at all, so one large answer never flushes the
 * many small ones everybody reads.
 */
export class BoundedEntries<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  #bytes = 0;

  constructor(private readonly bounds: EntryBounds) {}

  /** Number of values held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes of the values held (approximate; see approximateBytes). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The value of `key` while it has not expired at `now`; an expired one is dropped. */
  get(key: K, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.delete(key);
    return undefined;
  }

  /**
   * Stores `value` until `expiresAt`, first dropping from the oldest end the values expired at
   * `now` and as many more as both bounds need; false when the value is too large to keep or has
   * expired already.
   */
  set(key: K, value: V, expiresAt: number, now: number): boolean {
    this.delete(key);
    if (expiresAt <= now) return false;
    const bytes = approximateBytes(value);
    if (bytes > this.bounds.maxBytes / 8) return false;
    for (const [oldest, entry] of this.#entries) {
      if (entry.expiresAt > now && this.#entries.size < this.bounds.maxEntries && this.#bytes + bytes <= this.bounds.maxBytes) break;
      this.delete(oldest);
    }
    this.#entries.set(key, { value, expiresAt, bytes });
    this.#bytes += bytes;
    return true;
  }

  /** Drops `key`. */
  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  /** Drops every value. */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }
}

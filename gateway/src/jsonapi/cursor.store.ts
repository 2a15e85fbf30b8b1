import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '@inkwell/errors';
import { withRedisErrors, type Redis } from '@inkwell/redis';

/** Settings of the cursor store. */
export interface CursorStoreOptions {
  /** How long a cursor stays usable after it was issued; at least 3600 s in production (docs/api/lists.md, "Cursor pagination"). */
  readonly ttlSeconds: number;
  /** Redis key prefix (default `inkwell:cursor:`). */
  readonly keyPrefix?: string;
}

/** The state kept per cursor. */
interface StoredCursor {
  /** The backend's opaque keyset position (`next_after`). */
  readonly a: string;
  /** The binding of the request that issued it (cursorBinding). */
  readonly b: string;
}

const CURSOR_ID = /^[A-Za-z0-9_-]{22}$/;
const PARAMETER = 'page[cursor]';

/**
 * Cursor state in Redis (docs/api/lists.md, "Cursor pagination"). A cursor id is 128 random bits in base64url (22
 * characters) and reveals nothing; Redis maps it to the backend's `next_after` and the binding
 * of the request that issued it, for `ttlSeconds`. Each save or load is one Redis round trip.
 * A cursor may be used any number of times until it expires (clients retry). Redis failures
 * are 503 `unavailable`, not 500.
 */
export class CursorStore {
  readonly #redis: Redis;
  readonly #ttlSeconds: number;
  readonly #prefix: string;

  constructor(redis: Redis, options: CursorStoreOptions) {
    if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds < 1) throw new Error('cursor TTL must be a positive whole number of seconds');
    this.#redis = redis;
    this.#ttlSeconds = options.ttlSeconds;
    this.#prefix = options.keyPrefix ?? 'inkwell:cursor:';
  }

  /** The Redis key of a cursor id (for operators and tests). */
  key(id: string): string {
    return this.#prefix + id;
  }

  /** Stores `after` (non-empty) under a new cursor id bound to `binding`; returns the id. */
  async save(binding: string, after: string): Promise<string> {
    const id = randomBytes(16).toString('base64url');
    const value: StoredCursor = { a: after, b: binding };
    await withRedisErrors('cursor store', () => this.#redis.set(this.key(id), JSON.stringify(value), 'EX', this.#ttlSeconds));
    return id;
  }

  /**
   * The `after` stored under cursor `id`. 400 `invalid_cursor` (parameter `page[cursor]`) when
   * the id is malformed, unknown or expired, or was issued for another binding (other filters,
   * sort, query, endpoint or caller).
   */
  async load(id: string, binding: string): Promise<string> {
    if (!CURSOR_ID.test(id)) throw invalidCursor('The cursor is malformed. Use links.next of the previous page.');
    const text = await withRedisErrors('cursor store', () => this.#redis.get(this.key(id)));
    if (text === null) throw invalidCursor('The cursor is unknown or has expired. Start again from the first page.');
    let stored: StoredCursor;
    try {
      stored = JSON.parse(text) as StoredCursor;
    } catch (cause) {
      throw new AppError(ErrorCode.INTERNAL, 'stored cursor is not JSON', { cause });
    }
    if (stored.b !== binding) {
      throw invalidCursor('The cursor belongs to another query or caller: keep the filters, sort and query of the request that returned it.');
    }
    return stored.a;
  }
}

function invalidCursor(detail: string): AppError {
  return AppError.badParameter(PARAMETER, detail, 'invalid_cursor');
}

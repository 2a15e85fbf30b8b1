import { createHash } from 'node:crypto';
import { luaScript, withRedisErrors, type Redis } from '@inkwell/redis';
import { IDEMPOTENCY_MAX_KEPT_BODY_BYTES, IDEMPOTENCY_MAX_KEYS_PER_CALLER, IDEMPOTENCY_TTL_SECONDS } from './idempotency.rules.js';

/** A body too large to keep: what the replay can still say about it. */
export interface OmittedBody {
  /** SHA-256 (base64url) of the body as it was first sent. */
  readonly sha256: string;
  /** The primary resource's type and id, when the body had one. */
  readonly identifier?: { readonly type: string; readonly id: string };
}

/** A finished answer kept for replay: status, the headers that matter (e.g. Location) and the body, or what is left of a large one. */
export interface StoredAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON document; undefined for a 204 and for a body over the kept size. */
  readonly document?: unknown;
  /** Set instead of `document` when the body was over IDEMPOTENCY_MAX_KEPT_BODY_BYTES. */
  readonly omitted?: OmittedBody;
}

/** What a key holds: a request still running, or the answer it gave; both with the request's fingerprint. */
export type IdempotencyRecord = { readonly state: 'running'; readonly fingerprint: string } | { readonly state: 'done'; readonly fingerprint: string; readonly answer: StoredAnswer };

/** What claiming a key found: it is ours now, it holds a record, or the caller has used up its keys. */
export type ClaimResult = { readonly kind: 'claimed' } | { readonly kind: 'existing'; readonly record: IdempotencyRecord } | { readonly kind: 'over_budget'; readonly retryAfterSeconds: number };

/** Settings of the store. */
export interface IdempotencyStoreOptions {
  /** How long an answer is kept (24 hours in production). */
  readonly ttlSeconds?: number;
  /** How long a running request holds its key if it never finishes (the gateway crashed). */
  readonly lockSeconds?: number;
  /** New keys one caller may claim per `ttlSeconds` window. */
  readonly maxKeysPerCaller?: number;
  /** Largest body kept whole, in bytes of JSON. */
  readonly maxKeptBodyBytes?: number;
  /** Redis key prefix (default `inkwell:idem:`), after the system's REDIS_KEY_PREFIX. */
  readonly keyPrefix?: string;
}

/**
 * Claims a key atomically: an existing record wins; otherwise the caller's count of keys in the
 * window goes up (its clock starting with the first) and, within the budget, the key is set.
 * Returns {0} claimed, {1, record} existing, {2, seconds} over budget.
 */
const CLAIM_LUA = `
local existing = redis.call('GET', KEYS[1])
if existing then return { 1, existing } end
local count = redis.call('INCR', KEYS[2])
if count == 1 or redis.call('TTL', KEYS[2]) < 0 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
if count > tonumber(ARGV[3]) then return { 2, redis.call('TTL', KEYS[2]) } end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return { 0, '' }
`;
const CLAIM_COMMAND = 'inkwellIdempotencyClaim';
type ClaimCommand = (recordKey: string, countKey: string, running: string, lockSeconds: number, maxKeys: number, windowSeconds: number) => Promise<[number, string | number]>;

/**
 * Idempotency keys in Redis (docs/api/foundation.md, "Idempotent POSTs"): `claim` takes a key
 * for a request atomically, within the caller's budget of keys per window, or returns what the
 * key already holds; `finish` replaces the claim with the answer for `ttlSeconds` (a body over
 * the kept size is replaced by its digest and resource identifier); `abandon` drops the claim
 * (a 5xx answer, so that a retry runs again). Redis failures are 503 `unavailable`.
 */
export class IdempotencyStore {
  readonly #redis: Redis;
  readonly #ttlSeconds: number;
  readonly #lockSeconds: number;
  readonly #maxKeys: number;
  readonly #maxBodyBytes: number;
  readonly #prefix: string;
  readonly #claim: ClaimCommand;

  constructor(redis: Redis, options: IdempotencyStoreOptions = {}) {
    this.#redis = redis;
    this.#ttlSeconds = options.ttlSeconds ?? IDEMPOTENCY_TTL_SECONDS;
    this.#lockSeconds = options.lockSeconds ?? 120;
    this.#maxKeys = options.maxKeysPerCaller ?? IDEMPOTENCY_MAX_KEYS_PER_CALLER;
    this.#maxBodyBytes = options.maxKeptBodyBytes ?? IDEMPOTENCY_MAX_KEPT_BODY_BYTES;
    this.#prefix = options.keyPrefix ?? 'inkwell:idem:';
    this.#claim = luaScript<[number, string | number]>(redis, CLAIM_COMMAND, 2, CLAIM_LUA) as ClaimCommand;
  }

  /** The Redis key of an (owner, key) pair; both parts are already hashed or bounded by the caller. */
  key(owner: string, key: string): string {
    return `${this.#prefix}${owner}:${key}`;
  }

  /** Claims `key` of `owner` for a request with `fingerprint` (see ClaimResult). */
  async claim(owner: string, key: string, fingerprint: string): Promise<ClaimResult> {
    const running = JSON.stringify({ state: 'running', fingerprint } satisfies IdempotencyRecord);
    const countKey = `${this.#prefix}${owner}#count`;
    const [kind, value] = await withRedisErrors('idempotency store', () => this.#claim(key, countKey, running, this.#lockSeconds, this.#maxKeys, this.#ttlSeconds));
    if (kind === 0) return { kind: 'claimed' };
    if (kind === 1) return { kind: 'existing', record: JSON.parse(String(value)) as IdempotencyRecord };
    return { kind: 'over_budget', retryAfterSeconds: Math.max(1, Number(value)) };
  }

  /** Keeps the answer of the request that claimed `key`: whole, or as a digest when its body is over the kept size. */
  async finish(key: string, fingerprint: string, answer: StoredAnswer): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', fingerprint, answer: this.#bounded(answer) };
    await withRedisErrors('idempotency store', () => this.#redis.set(key, JSON.stringify(record), 'EX', this.#ttlSeconds));
  }

  /** Releases `key` without an answer. */
  async abandon(key: string): Promise<void> {
    await withRedisErrors('idempotency store', () => this.#redis.del(key));
  }

  #bounded(answer: StoredAnswer): StoredAnswer {
    if (answer.document === undefined) return answer;
    const body = JSON.stringify(answer.document);
    if (Buffer.byteLength(body) <= this.#maxBodyBytes) return answer;
    const identifier = primaryIdentifier(answer.document);
    const sha256 = createHash('sha256').update(body).digest('base64url');
    return { status: answer.status, headers: answer.headers, omitted: identifier === undefined ? { sha256 } : { sha256, identifier } };
  }
}

/** The type and id of a document's single primary resource, if it has one. */
function primaryIdentifier(document: unknown): OmittedBody['identifier'] {
  const data = (document as { data?: unknown } | null)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const { type, id } = data as { type?: unknown; id?: unknown };
  return typeof type === 'string' && typeof id === 'string' ? { type: type.slice(0, 64), id: id.slice(0, 64) } : undefined;
}

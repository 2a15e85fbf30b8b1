import { timestampMs } from '@bufbuild/protobuf/wkt';
import { hashToken, TOKEN_PREFIXES } from '@inkwell/auth-tokens';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { AccessToken, UsersService } from '@inkwell/proto/users';
import { TokenCache } from './token.cache.js';

/** What an access token stands for, as the token check needs it. Shared by every request with the token: never mutate. */
export interface ResolvedToken {
  /** sha256 hex of the token: the cache key and the key of revocation notices. */
  readonly hash: string;
  /** The user the token acts for; undefined for app-only (client credentials) tokens. */
  readonly userId: string | undefined;
  /** The OAuth client it was issued to; undefined for personal access tokens. */
  readonly appId: string | undefined;
  readonly scopes: readonly string[];
  /** Storage id of the token. */
  readonly tokenId: string;
  /** Epoch ms when the token expires; Infinity for a personal token without expiry. */
  readonly expiresAt: number;
  /**
   * The key of the rate-limit window the token counts on, built once (docs/api/auth.md, "Rate
   * limits"): its user's (`u:<user id>`, shared by every token acting for the user, personal or
   * through any app), or for an app-only token its app's (`app:<client id>`).
   */
  readonly rateKey: string;
}

/** Options of {@link AccessTokenResolver}. */
export interface AccessTokenResolverOptions {
  readonly users: Pick<GrpcClient<typeof UsersService>, 'getAccessToken'>;
  /** Most valid tokens kept in memory. */
  readonly cacheSize: number;
  /**
   * Most unknown (or expired, revoked) tokens remembered, in a cache of their own so that a flood
   * of garbage cannot evict valid tokens; defaults to `cacheSize`.
   */
  readonly negativeCacheSize?: number;
  /** Called once per users-service lookup (the `gateway_token_lookups_total` metric). */
  readonly onLookup?: () => void;
  /** How long a lookup is trusted before the users service is asked again (ms). */
  readonly ttlMs: number;
  /** Deadline of the lookup call (ms). */
  readonly deadlineMs?: number;
  /** Epoch ms; tests may move time. */
  readonly now?: () => number;
}

const ACCESS_PREFIXES = [TOKEN_PREFIXES.accessToken, TOKEN_PREFIXES.personalToken];
const BASE64URL = /^[A-Za-z0-9_-]{32,128}$/;

/**
 * Whether `token` has the shape of an Inkwell access token (`iwk_at_…` or `iwk_pat_…` with a
 * base64url body). Anything else cannot be one, so it is rejected without asking the users
 * service: garbage in the Authorization header costs no network round trip.
 */
export function looksLikeAccessToken(token: string): boolean {
  for (const prefix of ACCESS_PREFIXES) {
    if (token.startsWith(prefix)) return BASE64URL.test(token.slice(prefix.length));
  }
  return false;
}

/**
 * Resolves bearer tokens to users, apps and scopes (docs/api/auth.md, "The token check on API requests") without a network round trip in
 * the common case: results live in a bounded in-process LRU cache (TokenCache) keyed by the
 * token's hash, each trusted for `ttlMs` at most and never past the token's expiry. Unknown,
 * expired and revoked tokens are remembered too, so repeating a bad token costs no lookup
 * either (tokens are random, so a hash that is unknown now cannot become valid later), but in a
 * second, separate LRU: however many distinct unknown tokens arrive, they only evict each other,
 * never a valid token (docs/api/auth.md, "The token check").
 * Revocations reach the cache through {@link AccessTokenResolver.evict} (the Redis revocation
 * channel and the gateway's own /oauth/revoke).
 */
export class AccessTokenResolver {
  readonly #users: AccessTokenResolverOptions['users'];
  readonly #cache: TokenCache<ResolvedToken>;
  /** Tokens known to be invalid (the value is meaningless). */
  readonly #negative: TokenCache<true>;
  readonly #onLookup: () => void;
  readonly #ttlMs: number;
  readonly #deadlineMs: number | undefined;
  readonly #now: () => number;
  /** Lookups under way, so that concurrent misses of one token make one call. */
  readonly #inFlight = new Map<string, Promise<ResolvedToken | null>>();
  /** Bumped by every eviction: a lookup that started before one does not cache its answer, which may predate the revocation. */
  #evictions = 0;

  constructor(options: AccessTokenResolverOptions) {
    this.#users = options.users;
    this.#cache = new TokenCache(options.cacheSize);
    this.#negative = new TokenCache(options.negativeCacheSize ?? options.cacheSize);
    this.#onLookup = options.onLookup ?? (() => undefined);
    this.#ttlMs = options.ttlMs;
    this.#deadlineMs = options.deadlineMs;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The token behind `token`: synchronously from the cache when it is there (the hot path makes
   * no promise), otherwise a promise of the users service's answer. `null` means the token is
   * not valid (unknown, expired, revoked, or not shaped like a token). A lookup that fails for
   * another reason (the users service is down) rejects with its AppError and is not cached.
   */
  resolve(token: string): ResolvedToken | null | Promise<ResolvedToken | null> {
    const cached = this.cached(token);
    return cached === undefined ? this.lookUp(token) : cached;
  }

  /**
   * What the cache knows about `token` without any lookup: the resolved token, `null` when it is
   * known to be invalid (or not shaped like a token), `undefined` when only the users service can
   * tell (then {@link lookUp} asks it). Lets the caller count a request before the work a miss causes.
   */
  cached(token: string): ResolvedToken | null | undefined {
    if (!looksLikeAccessToken(token)) return null;
    const hash = hashToken(token);
    const now = this.#now();
    const cached = this.#cache.get(hash, now);
    if (cached !== undefined) return cached;
    return this.#negative.get(hash, now) === undefined ? undefined : null;
  }

  /** Asks the users service about `token` (one call for concurrent misses of one token) and caches the answer; see {@link resolve}. */
  lookUp(token: string): Promise<ResolvedToken | null> {
    const hash = hashToken(token);
    const pending = this.#inFlight.get(hash);
    if (pending !== undefined) return pending;
    const lookup = this.#lookUp(token, hash).finally(() => this.#inFlight.delete(hash));
    this.#inFlight.set(hash, lookup);
    return lookup;
  }

  /** Drops the tokens with these hashes from the cache (they were revoked). */
  evict(hashes: Iterable<string>): void {
    this.#evictions++;
    for (const hash of hashes) this.#cache.delete(hash);
  }

  /** Drops every cached token: revocation notices may have been missed (the subscription was down). */
  evictAll(): void {
    this.#evictions++;
    this.#cache.clear();
  }

  /** Valid tokens currently cached (for metrics and tests). */
  get cacheSize(): number {
    return this.#cache.size;
  }

  /** Invalid tokens currently remembered (for tests). */
  get negativeCacheSize(): number {
    return this.#negative.size;
  }

  async #lookUp(token: string, hash: string): Promise<ResolvedToken | null> {
    const evictions = this.#evictions;
    this.#onLookup();
    let found: AccessToken | undefined;
    try {
      found = (await this.#users.getAccessToken({ accessToken: token }, this.#deadlineMs === undefined ? {} : { deadlineMs: this.#deadlineMs })).token;
    } catch (error) {
      if (!isAppError(error) || error.code !== ErrorCode.UNAUTHENTICATED) throw error;
      found = undefined;
    }
    const now = this.#now();
    const resolved = found === undefined ? null : toResolved(found, hash);
    if (resolved === null || resolved.expiresAt <= now) {
      this.#negative.set(hash, true, now + this.#ttlMs, now);
      return null;
    }
    if (evictions !== this.#evictions) return resolved;
    this.#cache.set(hash, resolved, Math.min(now + this.#ttlMs, resolved.expiresAt), now);
    return resolved;
  }
}

function toResolved(token: AccessToken, hash: string): ResolvedToken {
  return {
    hash,
    userId: token.userId,
    appId: token.clientId === '' ? undefined : token.clientId,
    scopes: Object.freeze([...token.scopes]),
    tokenId: token.tokenId,
    expiresAt: token.expiresAt === undefined ? Number.POSITIVE_INFINITY : timestampMs(token.expiresAt),
    rateKey: rateKeyOf(token.userId, token.clientId, hash),
  };
}

/**
 * The window a token counts on: one per principal, so that minting more tokens never buys more
 * requests. Every token has a user or an app (the users service's store guarantees it); the
 * token's own hash is only a last resort should one arrive with neither.
 */
export function rateKeyOf(userId: string | undefined, clientId: string, hash: string): string {
  if (userId !== undefined) return `u:${userId}`;
  return clientId === '' ? `t:${hash}` : `app:${clientId}`;
}

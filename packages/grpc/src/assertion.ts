import { sign, verify, type KeyObject } from 'node:crypto';
import { AppError, ErrorCode } from '@inkwell/errors';
import { BoundedEntries, type EntryBounds } from '@inkwell/limits';
import type { CallerContext } from './caller-context.js';

/**
 * The gRPC metadata key of the signed caller assertion that every internal call carries
 * (docs/api/foundation.md, "Internal calls"). No other metadata key is trusted for identity.
 */
export const ASSERTION_METADATA_KEY = 'x-inkwell-assertion';

/**
 * The public keys a server trusts: issuer name (`gateway`, `users`, …) → key id → Ed25519
 * public key. Several key ids per issuer may be trusted at once, for key rotation.
 */
export type TrustedKeys = ReadonlyMap<string, ReadonlyMap<string, KeyObject>>;

/** What a verified assertion says: who signed it and the API caller it carries. */
export interface VerifiedAssertion {
  /** The process that signed the call (`gateway`, `bookshelves`, …). */
  issuer: string;
  /** The API caller the issuer acts for; no user, app or scopes for a service's own calls. The request id is not part of an assertion: the server adds the call's own. */
  caller: Omit<CallerContext, 'requestId'>;
}

/** Options of an {@link AssertionSigner}. */
export interface AssertionSignerOptions {
  /** This process's issuer name (`gateway`, `users`, …). */
  issuer: string;
  /** The key id the verifiers know this private key's public half by. */
  keyId: string;
  /** This process's Ed25519 private key. */
  privateKey: KeyObject;
  /** Lifetime of one assertion (default 60 s, at most {@link MAX_LIFETIME_SECONDS}). */
  lifetimeSeconds?: number;
  /** Current time in ms (tests); default Date.now. */
  now?: () => number;
}

/** Options of an {@link AssertionVerifier}. */
export interface AssertionVerifierOptions {
  /** The name of the service this server is (`users`, …): assertions must be addressed to it. */
  audience: string;
  /** Every issuer key this server accepts. */
  trustedKeys: TrustedKeys;
  /** Clock difference tolerated between signer and verifier (default 10 s). */
  clockSkewSeconds?: number;
  /** Current time in ms (tests); default Date.now. */
  now?: () => number;
}

/** An assertion living longer than this is refused even when validly signed. */
export const MAX_LIFETIME_SECONDS = 300;
const DEFAULT_LIFETIME_SECONDS = 60;
const DEFAULT_CLOCK_SKEW_SECONDS = 10;
/** Far above a real assertion (≈ 400 bytes plus scopes); refuses huge inputs before any parsing. */
const MAX_TOKEN_LENGTH = 8192;
/**
 * Assertions a signer keeps for reuse, and verified assertions a verifier remembers: enough for
 * every caller active within a minute on one process; beyond it the oldest entries make room.
 * An assertion past its use (due for renewal, or expired) leaves first, so a cache holds the
 * callers of the last minute rather than the last ten thousand callers' dead assertions (about a
 * kilobyte each). The byte bound only stops a few huge scope lists from filling memory.
 */
const ASSERTION_CACHE_BOUNDS: EntryBounds = { maxEntries: 10_000, maxBytes: 32 * 1024 * 1024 };
const ALGORITHM = 'EdDSA';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The JSON payload of an assertion (JWT-style claim names). */
interface Claims {
  iss: string;
  aud: string;
  /** The full gRPC method path, `/inkwell.users.v1.UsersService/GetUser`. */
  mth: string;
  iat: number;
  exp: number;
  /** API user id, when the caller is a user. */
  sub?: string;
  /** OAuth app id, when the caller is an app. */
  app?: string;
  /** OAuth scopes of the caller's token. */
  scp: string[];
}

/**
 * Signs caller assertions with this process's key: a compact JWS (EdDSA) whose payload binds
 * the caller (user, app, scopes), the issuer, the target service, the full method path,
 * issued-at and expiry (docs/api/foundation.md, "Internal calls"). One signer per process, shared
 * by all its clients. An assertion is reused for the same service, method and caller until half
 * its lifetime has passed, so a busy caller costs a signature now and then, not one per call.
 */
export class AssertionSigner {
  /** This process's issuer name. */
  readonly issuer: string;
  readonly #header: string;
  readonly #privateKey: KeyObject;
  readonly #lifetimeSeconds: number;
  readonly #now: () => number;
  /** Cache key (audience, method, caller) → the assertion, kept until it is due for renewal. */
  readonly #signed = new BoundedEntries<string, string>(ASSERTION_CACHE_BOUNDS);

  constructor(options: AssertionSignerOptions) {
    if (options.privateKey.type !== 'private' || options.privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the assertion key must be an Ed25519 private key');
    const lifetime = options.lifetimeSeconds ?? DEFAULT_LIFETIME_SECONDS;
    if (!(lifetime > 0 && lifetime <= MAX_LIFETIME_SECONDS)) throw new Error(`assertion lifetime must be within 1..${MAX_LIFETIME_SECONDS} s`);
    this.issuer = options.issuer;
    this.#header = encodeJson({ alg: ALGORITHM, typ: 'JWT', kid: options.keyId });
    this.#privateKey = options.privateKey;
    this.#lifetimeSeconds = lifetime;
    this.#now = options.now ?? Date.now;
  }

  /**
   * An assertion for calls of `method` (its full path) on service `audience`, acting for
   * `caller` (its request id aside); without a caller it carries this service's own identity,
   * no user and no scopes.
   */
  sign(audience: string, method: string, caller?: Omit<CallerContext, 'requestId'>): string {
    const now = this.#now();
    const scopes = caller?.scopes ?? [];
    const key = `${audience}\n${method}\n${caller?.userId ?? ''}\n${caller?.appId ?? ''}\n${scopes.join(' ')}`;
    const kept = this.#signed.get(key, now);
    if (kept !== undefined) return kept;
    const issuedAt = Math.floor(now / 1000);
    const claims: Claims = { iss: this.issuer, aud: audience, mth: method, iat: issuedAt, exp: issuedAt + this.#lifetimeSeconds, scp: [...scopes] };
    if (caller?.userId !== undefined) claims.sub = caller.userId;
    if (caller?.appId !== undefined) claims.app = caller.appId;
    const signingInput = `${this.#header}.${encodeJson(claims)}`;
    const token = `${signingInput}.${sign(null, Buffer.from(signingInput), this.#privateKey).toString('base64url')}`;
    this.#signed.set(key, token, issuedAt * 1000 + (this.#lifetimeSeconds * 1000) / 2, now);
    return token;
  }

  /** How many assertions are kept for reuse (for tests). */
  get keptAssertions(): number {
    return this.#signed.size;
  }
}

/**
 * Verifies caller assertions against the trusted issuer keys. Every failure is an AppError
 * UNAUTHENTICATED naming the reason (missing, malformed, untrusted key, bad signature, wrong
 * audience, wrong method, expired or not yet valid). An assertion whose signature was verified
 * once is remembered (by its exact text), so a reused one is only checked for its audience,
 * method and time.
 */
export class AssertionVerifier {
  /** The service name assertions must be addressed to. */
  readonly audience: string;
  readonly #trustedKeys: TrustedKeys;
  readonly #skewSeconds: number;
  readonly #now: () => number;
  /** Assertion text → its claims, for assertions whose signature was verified, until they expire. */
  readonly #verified = new BoundedEntries<string, Claims>(ASSERTION_CACHE_BOUNDS);

  constructor(options: AssertionVerifierOptions) {
    this.audience = options.audience;
    this.#trustedKeys = options.trustedKeys;
    this.#skewSeconds = options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
    this.#now = options.now ?? Date.now;
  }

  /** The issuer and caller of `token` when it is a valid assertion for a call of `method` (full path) on this audience. */
  verify(token: string | undefined, method: string): VerifiedAssertion {
    if (token === undefined || token === '') throw unauthenticated('no caller assertion');
    if (token.length > MAX_TOKEN_LENGTH) throw unauthenticated('malformed caller assertion');
    const nowMs = this.#now();
    const now = nowMs / 1000;
    const claims = this.#verified.get(token, nowMs) ?? this.#verifySignature(token, nowMs);
    if (claims.aud !== this.audience) throw unauthenticated('caller assertion for another service');
    if (claims.mth !== method) throw unauthenticated('caller assertion for another method');
    if (claims.exp <= claims.iat || claims.exp - claims.iat > MAX_LIFETIME_SECONDS) throw unauthenticated('caller assertion with an invalid lifetime');
    if (claims.iat > now + this.#skewSeconds) throw unauthenticated('caller assertion not valid yet');
    if (claims.exp + this.#skewSeconds <= now) throw unauthenticated('expired caller assertion');

    const caller: Omit<CallerContext, 'requestId'> = { scopes: claims.scp };
    if (claims.sub !== undefined) caller.userId = claims.sub;
    if (claims.app !== undefined) caller.appId = claims.app;
    return { issuer: claims.iss, caller };
  }

  /** How many verified assertions are remembered (for tests). */
  get rememberedAssertions(): number {
    return this.#verified.size;
  }

  /** The claims of `token` once its form and signature are verified (and remembered until it expires); throws UNAUTHENTICATED otherwise. */
  #verifySignature(token: string, nowMs: number): Claims {
    const parts = token.split('.');
    const [headerPart, payloadPart, signaturePart] = parts;
    if (parts.length !== 3 || headerPart === undefined || payloadPart === undefined || signaturePart === undefined || !parts.every((part) => BASE64URL.test(part))) {
      throw unauthenticated('malformed caller assertion');
    }
    const header = decodeJson(headerPart);
    const claims = decodeJson(payloadPart);
    if (!isRecord(header) || header.alg !== ALGORITHM || typeof header.kid !== 'string' || !isClaims(claims)) throw unauthenticated('malformed caller assertion');

    const key = this.#trustedKeys.get(claims.iss)?.get(header.kid);
    if (key === undefined) throw unauthenticated('caller assertion signed by an untrusted key');
    if (!verify(null, Buffer.from(`${headerPart}.${payloadPart}`), key, Buffer.from(signaturePart, 'base64url'))) throw unauthenticated('caller assertion with a bad signature');
    this.#verified.set(token, claims, (claims.exp + this.#skewSeconds) * 1000, nowMs);
    return claims;
  }
}

function unauthenticated(reason: string): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, `Unauthenticated internal call: ${reason}.`);
}

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isClaims(value: unknown): value is Claims {
  if (!isRecord(value)) return false;
  const { iss, aud, mth, iat, exp, sub, app, scp } = value;
  return (
    nonEmptyString(iss) &&
    nonEmptyString(aud) &&
    nonEmptyString(mth) &&
    Number.isSafeInteger(iat) &&
    Number.isSafeInteger(exp) &&
    (sub === undefined || nonEmptyString(sub)) &&
    (app === undefined || nonEmptyString(app)) &&
    Array.isArray(scp) &&
    scp.every(nonEmptyString)
  );
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

import { createHash } from 'node:crypto';
import type { Redis } from '@inkwell/redis';
import { FixedWindowLimiter, type RateLimitWindow } from './fixed-window.limiter.js';

/** The allowances of the credentials endpoints (docs/api/auth.md, "Credentials endpoints"). */
export interface CredentialLimits {
  /** Credential attempts per client address and window: sign-ins, sign-ups, failed OAuth requests. */
  readonly addressMax: number;
  readonly addressWindowMs: number;
  /** Sign-in attempts per (login, client address) and window; a successful sign-in resets it. */
  readonly signInMax: number;
  readonly signInWindowMs: number;
}

/**
 * Throttles the credentials endpoints by their source, not only by their target, so that a
 * stranger's failures cannot lock an account's owner out (the users service keeps only a much
 * higher per-account backstop) and one address cannot spray passwords across many names.
 * Two Redis fixed windows (FixedWindowLimiter, keys under `keyPrefix`):
 * - `c:<address>`: every sign-in and sign-up attempt and every failed OAuth endpoint request
 *   (`addressMax` per `addressWindowMs`);
 * - `s:<address>:<sha256 of the login, trimmed and lower-cased>`: sign-in attempts with one login
 *   from one address (`signInMax` per `signInWindowMs`), counted before the password is checked
 *   and reset by a successful sign-in. The login is hashed so that Redis holds no e-mail addresses.
 * Every method answers `undefined` when Redis cannot count (fail open, as the API's rate limits).
 */
export class CredentialThrottle {
  readonly #address: FixedWindowLimiter;
  readonly #signIn: FixedWindowLimiter;
  readonly #limits: CredentialLimits;

  constructor(redis: Redis, keyPrefix: string, limits: CredentialLimits) {
    this.#limits = limits;
    this.#address = new FixedWindowLimiter(redis, { windowMs: limits.addressWindowMs, keyPrefix });
    this.#signIn = new FixedWindowLimiter(redis, { windowMs: limits.signInWindowMs, keyPrefix });
  }

  /** Counts one credential attempt from `address` (a sign-in, a sign-up, a failed OAuth request). */
  attempt(address: string): Promise<RateLimitWindow | undefined> {
    return failOpen(this.#address.hit(addressKey(address), this.#limits.addressMax));
  }

  /** The address's window without counting: exceeded once `addressMax` attempts were counted. */
  check(address: string): Promise<RateLimitWindow | undefined> {
    return failOpen(this.#address.peek(addressKey(address), this.#limits.addressMax));
  }

  /** Counts one sign-in attempt with `login` from `address`, before its password is checked. */
  signInAttempt(address: string, login: string): Promise<RateLimitWindow | undefined> {
    return failOpen(this.#signIn.hit(signInKey(address, login), this.#limits.signInMax));
  }

  /** Forgets the sign-in attempts with `login` from `address` (it signed in). */
  async signedIn(address: string, login: string): Promise<void> {
    await failOpen(this.#signIn.reset(signInKey(address, login)));
  }
}

function addressKey(address: string): string {
  return `c:${address}`;
}

function signInKey(address: string, login: string): string {
  return `s:${address}:${createHash('sha256').update(login.trim().toLowerCase()).digest('hex')}`;
}

async function failOpen<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch {
    return undefined;
  }
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from '@inkwell/redis';

/** Name of the cookie holding a visitor's CSRF nonce (set by the sign-in and sign-up pages). */
export const VISITOR_COOKIE = 'inkwell_visitor';

/** How long a visitor's nonce cookie lives (seconds): a form shown today can be sent today. */
export const VISITOR_COOKIE_MAX_AGE_SECONDS = 24 * 60 * 60;

const NONCE = /^[A-Za-z0-9_-]{43}$/;

/** A new random nonce for the visitor cookie (32 bytes, base64url). */
export function newVisitorNonce(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `value` has the shape of a nonce this gateway hands out. */
export function isVisitorNonce(value: string | undefined): value is string {
  return value !== undefined && NONCE.test(value);
}

/** The form token of a nonce under `key`: HMAC-SHA256 over a fixed label and the nonce, base64url. */
export function visitorCsrfToken(key: Buffer, nonce: string): string {
  return createHmac('sha256', key).update('inkwell visitor csrf v1\0').update(nonce).digest('base64url');
}

/** Whether `submitted` is the form token of `nonce` under `key`, compared in constant time. */
export function visitorCsrfMatches(key: Buffer, nonce: string | undefined, submitted: string | null): boolean {
  if (!isVisitorNonce(nonce) || submitted === null) return false;
  const expected = Buffer.from(visitorCsrfToken(key, nonce));
  const given = Buffer.from(submitted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The server key of the stateless CSRF protection of the sign-in and sign-up forms
 * (docs/api/auth.md, "Pages, sessions and CSRF"): 32 random bytes kept in ONE Redis key per
 * deployment (`redisKey`, created with SET NX by whichever gateway needs it first, never
 * expiring), so every gateway of the deployment signs and checks the same tokens while a
 * visitor's page costs no Redis write at all. Read once per process and then kept in memory;
 * a failed read is retried on the next use.
 */
export class VisitorCsrfKey {
  readonly #redis: Redis;
  readonly #redisKey: string;
  #key: Promise<Buffer> | undefined;

  constructor(redis: Redis, redisKey: string) {
    this.#redis = redis;
    this.#redisKey = redisKey;
  }

  /** The key (from memory after the first call). */
  get(): Promise<Buffer> {
    this.#key ??= this.#load();
    this.#key.catch(() => {
      this.#key = undefined;
    });
    return this.#key;
  }

  async #load(): Promise<Buffer> {
    await this.#redis.set(this.#redisKey, randomBytes(32).toString('base64url'), 'NX');
    const stored = await this.#redis.get(this.#redisKey);
    if (stored === null) throw new Error('the CSRF key vanished from Redis right after it was stored');
    return Buffer.from(stored, 'base64url');
  }
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from '@inkwell/redis';

/** A browser session of the sign-in, consent and developer pages. */
export interface Session {
  /** The signed-in user; undefined for a visitor who has not signed in yet. */
  readonly userId: string | undefined;
  readonly userName: string | undefined;
  /** The synchronizer token every form of this session must echo (CSRF). */
  readonly csrf: string;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** A session together with its id (the cookie value). */
export interface OpenSession {
  readonly id: string;
  readonly session: Session;
}

/** Options of {@link SessionStore}. */
export interface SessionStoreOptions {
  /** Lifetime of a signed-in session (seconds, from sign-in). */
  readonly signedInTtlSeconds: number;
  /** Lifetime of a visitor's session (seconds): long enough to fill in a form. */
  readonly visitorTtlSeconds?: number;
  readonly keyPrefix?: string;
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Sessions in Redis. The id is 32 random bytes (base64url) and lives only in the cookie; Redis
 * keys are its sha256, so a dump of Redis opens no session. Every session, a visitor's too, has
 * its own CSRF token, so that the sign-in and sign-up forms are protected as well (login CSRF).
 * Signing in opens a new session (new id, new CSRF token) and deletes the visitor's one: an id
 * planted before sign-in is worthless after it (session fixation). Sessions expire by Redis TTL.
 */
export class SessionStore {
  readonly #redis: Redis;
  readonly #signedInTtl: number;
  readonly #visitorTtl: number;
  readonly #prefix: string;

  constructor(redis: Redis, options: SessionStoreOptions) {
    this.#redis = redis;
    this.#signedInTtl = options.signedInTtlSeconds;
    this.#visitorTtl = options.visitorTtlSeconds ?? 3_600;
    this.#prefix = options.keyPrefix ?? 'inkwell:session:';
  }

  /** Lifetime of a session of this kind (seconds): the cookie's Max-Age. */
  ttlSeconds(session: Session): number {
    return session.userId === undefined ? this.#visitorTtl : this.#signedInTtl;
  }

  /** The session of a cookie value; undefined for a malformed, unknown or expired id. */
  async load(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined || !SESSION_ID.test(id)) return undefined;
    const stored = await this.#redis.get(this.#key(id));
    if (stored === null) return undefined;
    try {
      const parsed = JSON.parse(stored) as Partial<Session>;
      if (typeof parsed.csrf !== 'string' || typeof parsed.createdAt !== 'number') return undefined;
      return { userId: typeof parsed.userId === 'string' ? parsed.userId : undefined, userName: typeof parsed.userName === 'string' ? parsed.userName : undefined, csrf: parsed.csrf, createdAt: parsed.createdAt };
    } catch {
      return undefined;
    }
  }

  /** Opens a new session: a visitor's (no user) or a signed-in one. */
  async open(user?: { readonly id: string; readonly name: string }): Promise<OpenSession> {
    const id = randomBytes(32).toString('base64url');
    const session: Session = { userId: user?.id, userName: user?.name, csrf: randomBytes(32).toString('base64url'), createdAt: Date.now() };
    await this.#redis.set(this.#key(id), JSON.stringify(session), 'EX', this.ttlSeconds(session));
    return { id, session };
  }

  /** Ends a session (sign-out, or the visitor's session replaced at sign-in). */
  async destroy(id: string | undefined): Promise<void> {
    if (id === undefined || !SESSION_ID.test(id)) return;
    await this.#redis.del(this.#key(id));
  }

  #key(id: string): string {
    return this.#prefix + createHash('sha256').update(id).digest('hex');
  }
}

/** Whether a submitted CSRF token equals the session's, compared in constant time. */
export function csrfMatches(session: Session, submitted: string | null): boolean {
  if (submitted === null) return false;
  const expected = Buffer.from(session.csrf);
  const given = Buffer.from(submitted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from '@inkwell/redis';

/** A browser session of the consent and developer pages: only signed-in people have one. */
export interface Session {
  /** The signed-in user. */
  readonly userId: string;
  readonly userName: string;
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
  readonly keyPrefix?: string;
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Sessions in Redis. The id is 32 random bytes (base64url) and lives only in the cookie; Redis
 * keys are its sha256, so a dump of Redis opens no session. A session exists only from sign-in
 * on (visitors' forms are protected without one: see visitor-csrf.ts), so anonymous page views
 * write nothing to Redis. Each session has its own CSRF token. Signing in always opens a new
 * session (new id, new CSRF token) and deletes any earlier one named by the cookie: an id
 * planted before sign-in is worthless after it (session fixation). Sessions expire by Redis TTL.
 */
export class SessionStore {
  readonly #redis: Redis;
  readonly #signedInTtl: number;
  readonly #prefix: string;

  constructor(redis: Redis, options: SessionStoreOptions) {
    this.#redis = redis;
    this.#signedInTtl = options.signedInTtlSeconds;
    this.#prefix = options.keyPrefix ?? 'inkwell:session:';
  }

  /** Lifetime of a session (seconds): the cookie's Max-Age. */
  get ttlSeconds(): number {
    return this.#signedInTtl;
  }

  /** The session of a cookie value; undefined for a malformed, unknown or expired id. */
  async load(id: string | undefined): Promise<Session | undefined> {
    if (id === undefined || !SESSION_ID.test(id)) return undefined;
    const stored = await this.#redis.get(this.#key(id));
    if (stored === null) return undefined;
    try {
      const parsed = JSON.parse(stored) as Partial<Session>;
      // Sessions of visitors (no user) were written by earlier versions; they are worth nothing now.
      if (typeof parsed.csrf !== 'string' || typeof parsed.createdAt !== 'number' || typeof parsed.userId !== 'string' || typeof parsed.userName !== 'string') return undefined;
      return { userId: parsed.userId, userName: parsed.userName, csrf: parsed.csrf, createdAt: parsed.createdAt };
    } catch {
      return undefined;
    }
  }

  /** Opens a new session for a user who has just signed in (or up). */
  async open(user: { readonly id: string; readonly name: string }): Promise<OpenSession> {
    const id = randomBytes(32).toString('base64url');
    const session: Session = { userId: user.id, userName: user.name, csrf: randomBytes(32).toString('base64url'), createdAt: Date.now() };
    await this.#redis.set(this.#key(id), JSON.stringify(session), 'EX', this.#signedInTtl);
    return { id, session };
  }

  /** Ends a session (sign-out, or an earlier session replaced at sign-in). */
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

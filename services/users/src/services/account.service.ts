import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '@inkwell/errors';
import { BATCH_ANSWER_MAX_BYTES, type BatchPage } from '@inkwell/limits';
import { renderMarkdown } from '@inkwell/markdown';
import { normalizeEmail, normalizeName } from '../domain/account.js';
import { hashPassword, verifyPassword } from '../domain/password.js';
import { accountThrottleKey, loginThrottleKey, SIGN_IN_POLICY } from '../domain/sign-in-throttle.js';
import { isUserId, visibleTo, type User, type Viewer, type VisibleUser } from '../domain/user.js';
import type { SignInThrottleRepository } from '../repositories/sign-in-throttle.repository.js';
import type { UserRepository } from '../repositories/user.repository.js';

/** What the account rules read and write of users: UserRepository, or a memory store in unit tests. */
export type UserStore = Pick<UserRepository, 'findById' | 'findByIds' | 'findByName' | 'findCredentials' | 'create' | 'update'>;

/** The sign-in back-off counters the account rules reserve and clear (SignInThrottleRepository). */
export type SignInThrottleStore = Pick<SignInThrottleRepository, 'reserve' | 'clear' | 'prune'>;

/** What it takes to register an account. */
export interface Registration {
  name: string;
  email: string;
  password: string;
  bio?: string;
}

/** A profile change of the caller's own account; absent fields stay unchanged. */
export interface ProfileChanges {
  bio?: string;
  email?: string;
}

/** The caller as the account rules see it. */
export type Caller = Viewer;

/**
 * Sign-in refused because of repeated failures (RESOURCE_EXHAUSTED, `rate_limited`). The
 * transport turns `retryAfterSeconds` into a `retry-after` response header.
 */
export class SignInLockedError extends AppError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    const detail = `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} seconds.`;
    super(ErrorCode.RESOURCE_EXHAUSTED, detail, { details: [{ reason: 'rate_limited', detail }] });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Wrong login or password: one error for both, so sign-in does not reveal which accounts exist. */
function invalidCredentials(): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, 'The name or e-mail address and password do not match.', {
    details: [{ reason: 'invalid_credentials' }],
  });
}

/** The rules about accounts: registration, sign-in with back-off, profiles and their visibility. */
export class AccountService {
  /** A hash to verify against when the login is unknown, so that both cases cost one scrypt. */
  #dummyHash: Promise<string> | undefined;

  constructor(
    private readonly users: UserStore,
    private readonly throttles: SignInThrottleStore,
  ) {}

  /**
   * Computes the dummy hash ahead of the first sign-in, so that the first unknown login is not
   * slower than later ones. main.ts starts it beside the server's start (a scrypt on the thread
   * pool, off the restart's critical path); a sign-in before it is done waits for the same hash.
   */
  async prepare(): Promise<void> {
    await this.#dummy();
  }

  /** The user `id` as `viewer` may see it; NOT_FOUND for unknown or malformed ids. */
  async getUser(id: string, viewer: Viewer): Promise<VisibleUser> {
    return visibleTo(await this.#existing(id), viewer);
  }

  /**
   * The users `ids` as `viewer` may see them, in the order asked, each once; unknown or malformed
   * ids are left out (at most 1000 ids: BatchGetUsersRequest's rule). The answer stops within its
   * byte budget and names the ids it did not read as `deferred` (docs/api/foundation.md, "Byte budgets").
   */
  async getUsers(ids: readonly string[], viewer: Viewer): Promise<BatchPage<VisibleUser>> {
    const wanted = [...new Set(ids.filter(isUserId))];
    if (wanted.length === 0) return { items: [], deferred: [] };
    const { users, covered } = await this.users.findByIds(wanted, BATCH_ANSWER_MAX_BYTES);
    return { items: users.map((user) => visibleTo(user, viewer)), deferred: wanted.slice(covered) };
  }

  /**
   * The user with this id or (case-insensitive) name, e-mail included, suspended or not: for the
   * operator CLI. NOT_FOUND when there is none.
   */
  async findUser(idOrName: string): Promise<User> {
    const lookup = { includeSuspended: true };
    const user = isUserId(idOrName) ? await this.users.findById(idOrName, lookup) : await this.users.findByName(normalizeName(idOrName), lookup);
    if (!user) throw AppError.notFound('user');
    return user;
  }

  /**
   * Registers an account whose name, e-mail address and password meet the rules of
   * RegisterUserRequest (checked before the service runs, also by the operator CLI); the name is
   * stored in NFC and the address trimmed. A taken name or e-mail address (regardless of case) is
   * ALREADY_EXISTS. The new user is returned with the e-mail: the registrant is the caller.
   */
  async register(registration: Registration): Promise<User> {
    const name = normalizeName(registration.name);
    const email = normalizeEmail(registration.email);
    const bio = registration.bio ?? '';
    const bioHtml = await renderMarkdown(bio, { pointer: '/data/attributes/bio' });
    return this.users.create({ name, email, passwordHash: await hashPassword(registration.password), bio, bioHtml });
  }

  /**
   * Registers `registration` unless its name is taken, in which case the existing user is kept
   * and returned: used by the demo seed so that running it twice changes nothing.
   */
  async ensureUser(registration: Registration): Promise<User> {
    return (await this.users.findByName(normalizeName(registration.name))) ?? this.register(registration);
  }

  /**
   * Signs in with a name or e-mail address and a password, from client address `clientAddress`
   * ('' when unknown; at most 64 characters: AuthenticateRequest's rule).
   * Unknown logins and wrong passwords are the same UNAUTHENTICATED `invalid_credentials` and cost
   * the same scrypt verification. Each attempt first reserves a try on the login's counter and the
   * account's counter (see domain/sign-in-throttle.ts); a locked counter refuses with
   * SignInLockedError before any password is checked, except from an address without attempts on
   * it since its last success (docs/api/accounts.md, "Sign-in"). Success forgets the address's
   * attempts and clears both counters unless they are locked.
   */
  async authenticate(login: string, password: string, clientAddress = ''): Promise<User> {
    const trimmed = login.trim();
    const keys = [loginThrottleKey(trimmed)];
    await this.#reserve(keys[0]!, clientAddress);
    const credentials = trimmed === '' ? undefined : await this.users.findCredentials(trimmed);
    if (credentials) {
      keys.push(accountThrottleKey(credentials.user.id));
      await this.#reserve(keys[1]!, clientAddress);
    }
    const matches = await verifyPassword(password, credentials?.passwordHash ?? (await this.#dummy()));
    if (!credentials || !matches) throw invalidCredentials();
    await this.throttles.clear(keys, clientAddress);
    return credentials.user;
  }

  /**
   * Changes the caller's own bio and/or e-mail address (valid by UpdateUserRequest's rules).
   * PERMISSION_DENIED (`forbidden`) for anyone else's account; a taken e-mail ALREADY_EXISTS.
   * Writes UserUpdated. The result is what the caller may see (e-mail with read_user). Who may
   * write is checked before the bio is rendered; nothing is stored once `signal` has aborted
   * (docs/api/foundation.md, "Markdown").
   */
  async updateProfile(caller: Caller, id: string, changes: ProfileChanges, signal?: AbortSignal): Promise<VisibleUser> {
    if (caller.userId === undefined || caller.userId !== id) throw AppError.forbidden('You can change only your own account.');
    const email = changes.email === undefined ? undefined : normalizeEmail(changes.email);
    const bio = changes.bio === undefined ? undefined : { text: changes.bio, html: await renderMarkdown(changes.bio, { pointer: '/data/attributes/bio', caller, signal }) };
    const updated = await this.users.update(id, {
      ...(email === undefined ? {} : { email }),
      ...(bio === undefined ? {} : { bio }),
    }, signal);
    if (!updated) throw AppError.notFound('user');
    return visibleTo(updated, caller);
  }

  /**
   * Deletes back-off counters and address records idle for a day (unknown logins and strangers'
   * addresses would pile up), in batches of `batchSize` rows per table, at most `maxBatches`
   * batches per call (the next sweep goes on); returns how many rows were deleted.
   */
  async pruneSignInCounters(batchSize = 1000, maxBatches = 100): Promise<number> {
    let deleted = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const count = await this.throttles.prune(SIGN_IN_POLICY.forgetAfterMs, batchSize);
      deleted += count;
      // Each table gives at most batchSize rows: a smaller sum means both are done.
      if (count < batchSize) break;
    }
    return deleted;
  }

  async #existing(id: string): Promise<User> {
    const user = isUserId(id) ? await this.users.findById(id) : undefined;
    if (!user) throw AppError.notFound('user');
    return user;
  }

  async #reserve(key: string, clientAddress: string): Promise<void> {
    const reservation = await this.throttles.reserve(key, clientAddress);
    if (!reservation.allowed) {
      const waitMs = (reservation.lockedUntil?.getTime() ?? Date.now()) - Date.now();
      throw new SignInLockedError(Math.max(1, Math.ceil(waitMs / 1000)));
    }
  }

  #dummy(): Promise<string> {
    this.#dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
    this.#dummyHash.catch(() => {
      this.#dummyHash = undefined;
    });
    return this.#dummyHash;
  }
}

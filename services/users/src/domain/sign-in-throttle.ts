/**
 * Back-off after failed sign-ins: the per-account BACKSTOP against guessing spread over many
 * client addresses (docs/api/accounts.md, "Sign-in"). The gateway throttles each source first
 * (5 attempts per login and address per 15 minutes, 20 credential attempts per address per
 * minute), so a single stranger never gets near these numbers. Every sign-in attempt reserves one
 * attempt on two counters before the password is checked: one per login string (name or e-mail
 * as typed, lower-cased) and, when the login names an existing user, one per account.
 * Reserving before checking makes the limit exact under concurrency: at most `maxAttempts`
 * passwords are ever checked per counter and window, however many requests arrive at once. A
 * successful sign-in clears both counters unless they are locked. The attempt after the last
 * allowed one locks the counter for an increasing delay. 100 is the most consecutive failures
 * NIST SP 800-63B §5.2.2 allows before an account is locked.
 *
 * A lock refuses only the addresses that took part: each counter also records, per client
 * address, the attempts since that address's last success on it ({@link reserveFromAddress}).
 * While the counter is locked, an address without any is admitted once (its attempt is recorded
 * before the password is checked), so strangers failing from many addresses can never refuse
 * the owner's right password from an address they have not used; each of their addresses gets
 * no further try until the lock ends.
 */
export const SIGN_IN_POLICY = {
  /** Attempts without success allowed per counter and window. */
  maxAttempts: 100,
  /** Length of the window in which attempts are counted. */
  windowMs: 60 * 60 * 1000,
  /** First lock; each further lock of the same counter doubles it. */
  firstLockMs: 60 * 1000,
  /** Longest lock. */
  maxLockMs: 15 * 60 * 1000,
  /** A counter (or an address's attempts on it) untouched this long forgets its earlier locks (attempts) and is deleted. */
  forgetAfterMs: 24 * 60 * 60 * 1000,
} as const;

/** How long the `lockouts`-th lock (0-based) of one counter lasts: 1 min, 2 min, 4 min, … up to 15 min. */
export function lockDurationMs(lockouts: number): number {
  const exponent = Math.min(Math.max(lockouts, 0), 30);
  return Math.min(SIGN_IN_POLICY.firstLockMs * 2 ** exponent, SIGN_IN_POLICY.maxLockMs);
}

/** The counter key of a login string: case and surrounding spaces do not make a new counter. */
export function loginThrottleKey(login: string): string {
  return `login:${login.trim().toLowerCase()}`;
}

/** The counter key of an account. */
export function accountThrottleKey(userId: string): string {
  return `user:${userId}`;
}

/** One back-off counter as stored. */
export interface ThrottleState {
  attempts: number;
  windowStartedAt: Date;
  lockedUntil?: Date;
  /** How many times this counter has been locked (drives the doubling). */
  lockouts: number;
  updatedAt: Date;
}

/** The decision of {@link reserveAttempt}: the counter's next state and whether the attempt may go ahead. */
export interface Reservation {
  state: ThrottleState;
  allowed: boolean;
  /** When refused: when the counter unlocks. */
  lockedUntil?: Date;
}

/**
 * Reserves one sign-in attempt on a counter (`current` undefined: a new counter) at `now`.
 * Refused while locked (the state is unchanged). Otherwise the attempt is counted in the current
 * window (a new window once the last is over); the attempt after `maxAttempts` locks the counter
 * instead, for {@link lockDurationMs} of its lock count, and starts a fresh window for after the lock.
 * A counter idle for `forgetAfterMs` forgets its lock count.
 */
export function reserveAttempt(current: ThrottleState | undefined, now: Date): Reservation {
  const at = now.getTime();
  const state: ThrottleState = current ?? { attempts: 0, windowStartedAt: now, lockouts: 0, updatedAt: now };
  if (state.lockedUntil !== undefined && state.lockedUntil.getTime() > at) {
    return { state, allowed: false, lockedUntil: state.lockedUntil };
  }
  const lockouts = at - state.updatedAt.getTime() > SIGN_IN_POLICY.forgetAfterMs ? 0 : state.lockouts;
  const windowOver = at - state.windowStartedAt.getTime() >= SIGN_IN_POLICY.windowMs;
  const attempts = (windowOver ? 0 : state.attempts) + 1;
  if (attempts > SIGN_IN_POLICY.maxAttempts) {
    const lockedUntil = new Date(at + lockDurationMs(lockouts));
    return { state: { attempts: 0, windowStartedAt: now, lockedUntil, lockouts: lockouts + 1, updatedAt: now }, allowed: false, lockedUntil };
  }
  return { state: { attempts, windowStartedAt: windowOver ? now : state.windowStartedAt, lockouts, updatedAt: now }, allowed: true };
}

/** The attempts one client address made on one counter since its last success there, as stored. */
export interface AddressAttempts {
  attempts: number;
  updatedAt: Date;
}

/** What {@link reserveFromAddress} decided. */
export interface AddressReservation {
  /** The counter's reservation; `allowed` when the counter allowed it or its lock spared the address. */
  reservation: Reservation;
  /** The address's record to store, this attempt included. */
  address: AddressAttempts;
}

/**
 * Counts the attempt `reservation` (of one counter, at `now`) against the address it comes from
 * (`previous`: its record, undefined when it has none) and lets a lock spare it: a counter that
 * refused because it is locked admits an address with no attempts on it since its last success
 * (a record quiet for `forgetAfterMs` counts as none). Because the attempt is recorded before the
 * password is checked, a clean address is admitted exactly once per lock, however many requests
 * it sends at once; the owner's successful sign-in clears the record again.
 */
export function reserveFromAddress(reservation: Reservation, previous: AddressAttempts | undefined, now: Date): AddressReservation {
  const quiet = previous === undefined || now.getTime() - previous.updatedAt.getTime() > SIGN_IN_POLICY.forgetAfterMs;
  const earlier = quiet ? 0 : previous.attempts;
  const address = { attempts: earlier + 1, updatedAt: now };
  // reserveAttempt refuses only while the counter is locked (or as it locks it).
  if (!reservation.allowed && earlier === 0) return { reservation: { state: reservation.state, allowed: true }, address };
  return { reservation, address };
}

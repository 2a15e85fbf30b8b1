import { describe, expect, it } from 'vitest';
import { lockDurationMs, reserveAttempt, SIGN_IN_POLICY, type ThrottleState } from './sign-in-throttle.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

/** Reserves `count` attempts from `state` at time `ms`; returns the last reservation. */
function attempts(state: ThrottleState | undefined, count: number, ms: number) {
  let reservation = reserveAttempt(state, at(ms));
  for (let index = 1; index < count; index++) reservation = reserveAttempt(reservation.state, at(ms));
  return reservation;
}

describe('reserveAttempt', () => {
  it('allows 5 attempts in a window and locks on the 6th for 30 seconds', () => {
    const fifth = attempts(undefined, 5, 0);
    expect(fifth.allowed).toBe(true);
    const sixth = reserveAttempt(fifth.state, at(1000));
    expect(sixth).toMatchObject({ allowed: false, lockedUntil: at(31_000) });
    expect(reserveAttempt(sixth.state, at(30_999))).toMatchObject({ allowed: false, lockedUntil: at(31_000) });
  });

  it('doubles the lock each time, up to 15 minutes', () => {
    let state: ThrottleState | undefined;
    let now = 0;
    const locks: number[] = [];
    for (let round = 0; round < 8; round++) {
      const locked = attempts(state, 6, now);
      expect(locked.allowed).toBe(false);
      locks.push(locked.lockedUntil!.getTime() - at(now).getTime());
      state = locked.state;
      now = locked.lockedUntil!.getTime() - at(0).getTime();
    }
    expect(locks).toEqual([30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000]);
  });

  it('starts a new window after 15 minutes and forgets earlier locks after a quiet day', () => {
    const four = attempts(undefined, 4, 0);
    expect(attempts(four.state, 5, SIGN_IN_POLICY.windowMs).allowed).toBe(true);
    const locked = attempts(undefined, 6, 0);
    const dayLater = SIGN_IN_POLICY.forgetAfterMs + 1;
    const relocked = attempts(locked.state, 6, dayLater);
    expect(relocked.lockedUntil!.getTime() - at(dayLater).getTime()).toBe(30_000);
  });

  it('never computes a negative or unbounded lock', () => {
    expect(lockDurationMs(-3)).toBe(30_000);
    expect(lockDurationMs(10_000)).toBe(900_000);
  });
});

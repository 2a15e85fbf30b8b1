import { describe, expect, it } from 'vitest';
import { lockDurationMs, reserveAttempt, reserveFromAddress, SIGN_IN_POLICY, type ThrottleState } from './sign-in-throttle.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

/** Reserves `count` attempts from `state` at time `ms`; returns the last reservation. */
function attempts(state: ThrottleState | undefined, count: number, ms: number) {
  let reservation = reserveAttempt(state, at(ms));
  for (let index = 1; index < count; index++) reservation = reserveAttempt(reservation.state, at(ms));
  return reservation;
}

describe('reserveAttempt', () => {
  it('is a backstop: allows 100 attempts in an hour and locks on the 101st for a minute', () => {
    expect(SIGN_IN_POLICY).toMatchObject({ maxAttempts: 100, windowMs: 3_600_000 });
    const hundredth = attempts(undefined, 100, 0);
    expect(hundredth.allowed).toBe(true);
    const next = reserveAttempt(hundredth.state, at(1000));
    expect(next).toMatchObject({ allowed: false, lockedUntil: at(61_000) });
    expect(reserveAttempt(next.state, at(60_999))).toMatchObject({ allowed: false, lockedUntil: at(61_000) });
  });

  it('doubles the lock each time, up to 15 minutes', () => {
    let state: ThrottleState | undefined;
    let now = 0;
    const locks: number[] = [];
    for (let round = 0; round < 8; round++) {
      const locked = attempts(state, SIGN_IN_POLICY.maxAttempts + 1, now);
      expect(locked.allowed).toBe(false);
      locks.push(locked.lockedUntil!.getTime() - at(now).getTime());
      state = locked.state;
      now = locked.lockedUntil!.getTime() - at(0).getTime();
    }
    expect(locks).toEqual([60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000, 900_000]);
  });

  it('starts a new window after an hour and forgets earlier locks after a quiet day', () => {
    const max = SIGN_IN_POLICY.maxAttempts;
    const almost = attempts(undefined, max - 1, 0);
    expect(attempts(almost.state, max, SIGN_IN_POLICY.windowMs).allowed).toBe(true);
    const locked = attempts(undefined, max + 1, 0);
    const dayLater = SIGN_IN_POLICY.forgetAfterMs + 1;
    const relocked = attempts(locked.state, max + 1, dayLater);
    expect(relocked.lockedUntil!.getTime() - at(dayLater).getTime()).toBe(60_000);
  });

  it('never computes a negative or unbounded lock', () => {
    expect(lockDurationMs(-3)).toBe(60_000);
    expect(lockDurationMs(10_000)).toBe(900_000);
  });
});

describe('reserveFromAddress', () => {
  const locked = attempts(undefined, SIGN_IN_POLICY.maxAttempts + 1, 0);

  it('lets a lock spare an address without attempts on the counter, once, and counts every attempt', () => {
    expect(locked.allowed).toBe(false);
    const clean = reserveFromAddress(locked, undefined, at(1000));
    expect(clean.reservation.allowed).toBe(true);
    expect(clean.reservation.state).toBe(locked.state);
    expect(clean.address).toEqual({ attempts: 1, updatedAt: at(1000) });
    const again = reserveFromAddress(reserveAttempt(locked.state, at(2000)), clean.address, at(2000));
    expect(again.reservation).toMatchObject({ allowed: false, lockedUntil: locked.lockedUntil });
    expect(again.address.attempts).toBe(2);
  });

  it('changes nothing about an attempt the counter allows, and forgets an address quiet for a day', () => {
    const open = reserveAttempt(undefined, at(0));
    expect(reserveFromAddress(open, { attempts: 7, updatedAt: at(0) }, at(0))).toEqual({ reservation: open, address: { attempts: 8, updatedAt: at(0) } });
    const later = SIGN_IN_POLICY.forgetAfterMs + 1;
    expect(reserveFromAddress(locked, { attempts: 7, updatedAt: at(0) }, at(later)).reservation.allowed).toBe(true);
  });
});

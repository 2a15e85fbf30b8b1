import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, failedTooLong, nextAttemptAt, retryDelayMs } from './retry-schedule.js';

describe('the retry schedule (docs/api/webhooks.md, "Retries")', () => {
  it('caps the wait at base · 2^(attempts−1), up to an hour, with full jitter', () => {
    const top = () => 1 - Number.EPSILON;
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 1, top)).toBe(9_999);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 2, top)).toBe(19_999);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 5, top)).toBe(159_999);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 20, top)).toBe(3_599_999);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 500, top)).toBe(3_599_999);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 3, () => 0)).toBe(0);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 3, () => 0.5)).toBe(20_000);
  });

  it('stops retrying once the next attempt would fall outside the 3-day window', () => {
    const start = new Date('2026-01-01T00:00:00Z');
    const almost = new Date(start.getTime() + DEFAULT_RETRY_SCHEDULE.windowMs - 1_000);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE, 1, start, new Date(start.getTime() + 1_000), () => 0.5)).toEqual(new Date(start.getTime() + 6_000));
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE, 30, start, almost, () => 0.5)).toBeUndefined();
  });

  it('disables an endpoint after 3 days of failures, not before', () => {
    const since = new Date('2026-01-01T00:00:00Z');
    expect(failedTooLong(DEFAULT_RETRY_SCHEDULE, since, new Date(since.getTime() + DEFAULT_RETRY_SCHEDULE.windowMs - 1))).toBe(false);
    expect(failedTooLong(DEFAULT_RETRY_SCHEDULE, since, new Date(since.getTime() + DEFAULT_RETRY_SCHEDULE.windowMs))).toBe(true);
  });
});

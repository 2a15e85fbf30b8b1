/** The retry schedule of deliveries (docs/api/webhooks.md, "Retries"). */
export interface RetrySchedule {
  /** The cap of the first wait: the cap doubles after each failed attempt. */
  baseMs: number;
  /** The largest cap of a wait. */
  maxDelayMs: number;
  /** How long after its first attempt a delivery is retried, and how long an endpoint may fail before it is disabled. */
  windowMs: number;
}

/** The production schedule: waits up to 10 s, 20 s, 40 s … capped at 1 hour, for 3 days. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseMs: 10_000, maxDelayMs: 60 * 60 * 1000, windowMs: 3 * 24 * 60 * 60 * 1000 };

/**
 * The wait before the attempt after `attempts` failed ones: exponential backoff with full jitter,
 * a uniform draw in [0, min(maxDelayMs, baseMs · 2^(attempts−1))]. `random` is in [0, 1).
 */
export function retryDelayMs(schedule: RetrySchedule, attempts: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, attempts - 1);
  const cap = Math.min(schedule.maxDelayMs, schedule.baseMs * 2 ** Math.min(exponent, 40));
  return Math.floor(random() * cap);
}

/** When the next attempt is due, or undefined when the delivery has used up its window (then it fails). */
export function nextAttemptAt(schedule: RetrySchedule, attempts: number, windowStart: Date, now: Date, random: () => number = Math.random): Date | undefined {
  const due = new Date(now.getTime() + retryDelayMs(schedule, attempts, random));
  return due.getTime() - windowStart.getTime() > schedule.windowMs ? undefined : due;
}

/** Whether an endpoint whose attempts have all failed since `failingSince` is to be disabled at `now`. */
export function failedTooLong(schedule: RetrySchedule, failingSince: Date, now: Date): boolean {
  return now.getTime() - failingSince.getTime() >= schedule.windowMs;
}

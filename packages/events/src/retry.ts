import { setTimeout as wait } from 'node:timers/promises';
import type { Logger } from '@inkwell/logging';

/** Options of {@link retryUntilDone}. */
export interface RetryOptions {
  /** What is being attempted, for the warning logged after each failed attempt. */
  what: string;
  logger: Logger;
  /** Aborting ends the retries (the promise then resolves false). */
  signal: AbortSignal;
  /** Wait after the first failure (default 1 s); doubled after each further one. */
  initialDelayMs?: number;
  /** Longest wait between attempts (default 10 s). */
  maxDelayMs?: number;
}

/**
 * Runs `attempt` until it succeeds (resolves true) or `signal` is aborted (resolves false, at
 * once: an attempt in flight is left to fail or finish on its own), waiting with exponential
 * backoff between failures. Each failure is one warning with the
 * error's message and the wait, not its stack: a broker that is down for an hour fills the log
 * with one short line per attempt, not a trace per attempt.
 */
export async function retryUntilDone(attempt: () => Promise<unknown>, options: RetryOptions): Promise<boolean> {
  const initial = options.initialDelayMs ?? 1_000;
  const max = options.maxDelayMs ?? 10_000;
  for (let failures = 0; !options.signal.aborted; ) {
    try {
      if (!(await untilAborted(attempt(), options.signal))) return false;
      return !options.signal.aborted;
    } catch (error) {
      if (options.signal.aborted) return false;
      const retryInMs = Math.min(initial * 2 ** failures, max);
      failures += 1;
      options.logger.warn({ reason: errorMessage(error), attempt: failures, retryInMs }, `${options.what} failed; retrying`);
      if (!(await pause(retryInMs, options.signal))) return false;
    }
  }
  return false;
}

/** Waits `ms`; resolves false at once when `signal` is aborted meanwhile. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await wait(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Resolves true when `work` finished first, false when `signal` aborted first; rejects when `work` fails first. */
async function untilAborted(work: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  // A failure after the abort is nobody's concern any more.
  work.catch(() => {});
  try {
    return await Promise.race([work.then(() => true as const), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** The message of an error (or of anything thrown), for one-line logs. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

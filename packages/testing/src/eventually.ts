/** Options of {@link eventually}. */
export interface EventuallyOptions {
  /** How long to keep trying before failing (default 10 s). */
  timeoutMs?: number;
  /** The pause between two tries (default 50 ms). */
  intervalMs?: number;
  /** Names the awaited condition in the timeout error; a function is read only when the wait fails (e.g. to show the last value seen). */
  what?: string | (() => string);
}

/**
 * Polls `check` until it holds, for tests that wait on something asynchronous (a consumer, a
 * subscription, an index) instead of sleeping. Bounded: after `timeoutMs` it throws, naming
 * `what`. An error thrown by `check` ends the wait at once and propagates.
 */
export async function eventually(check: () => boolean | Promise<boolean>, options: EventuallyOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      const what = typeof options.what === 'function' ? options.what() : (options.what ?? 'the condition');
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

/**
 * Calls `probe` until `accept` holds for its value and returns that value (see {@link eventually});
 * the timeout error shows the last value seen.
 */
export async function eventuallyValue<T>(probe: () => Promise<T>, accept: (value: T) => boolean, options: EventuallyOptions = {}): Promise<T> {
  let last: T | undefined;
  let seen = false;
  const what = options.what;
  await eventually(
    async () => {
      last = await probe();
      seen = true;
      return accept(last);
    },
    { ...options, what: () => `${typeof what === 'function' ? what() : (what ?? 'the value')}; last value ${seen ? JSON.stringify(last) : 'none'}` },
  );
  return last as T;
}

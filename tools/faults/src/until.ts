/** Options of {@link until}. */
export interface UntilOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Named in the timeout error. */
  what: string;
}

/**
 * Polls `check` until it resolves true (bounded: fails after `timeoutMs` with `what`); an error
 * thrown by `check` ends the wait at once. Returns how long it took, in milliseconds.
 */
export async function until(check: () => Promise<boolean>, options: UntilOptions): Promise<number> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() >= deadline) throw new Error(`timed out after ${options.timeoutMs} ms waiting until ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}

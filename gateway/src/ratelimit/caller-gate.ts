/** Bounds of a {@link CallerGate}. */
export interface CallerGateOptions {
  /** Requests of one caller this process works on at once. */
  readonly inFlight: number;
  /** Requests of one caller waiting for their turn; beyond, a request is refused. */
  readonly waiting: number;
  /** Bytes of answers one caller may take from this process per second, on average. */
  readonly bytesPerSecond: number;
  /** Longest a request waits in line before it is refused (default 30 s). */
  readonly maxWaitMs?: number;
  /** Told when a request is refused after waiting `maxWaitMs`, with its line's state (for the log). */
  readonly onExpired?: (caller: string, line: { running: number; waiting: number; pacedForMs: number }) => void;
  /**
   * A monotonic clock in ms (default `performance.now`; tests pass their own). Never the wall
   * clock: a wall clock stepped back would hold a caller's line for as long as the step.
   */
  readonly now?: () => number;
}

/** How often a waiting request looks whether its line may start it, besides the line's own wake-ups. */
const RECHECK_MS = 250;

/** Longest a request waits in its caller's line when not configured. */
const DEFAULT_MAX_WAIT_MS = 30_000;

interface Waiter {
  readonly start: () => void;
}

interface CallerLine {
  running: number;
  readonly waiting: Waiter[];
  /** No request of the caller starts before this time (ms): its answers' bytes are paid off. */
  notBefore: number;
  timer?: NodeJS.Timeout | undefined;
}

/** A turn's end: call with the bytes of its answer once the answer is done (or abandoned). */
export type Release = (answerBytes: number) => void;

/**
 * Each caller's share of one gateway process (docs/api/auth.md, "Rate limits"). At most
 * `inFlight` of a caller's requests are worked on at once, and a caller's answers are paid for
 * in time: after an answer of B bytes, its next request starts no sooner than B /
 * `bytesPerSecond` later (small answers cost next to nothing; a caller reading 2 MB pages gets a
 * few a second). Requests over either bound wait in line, in order, costing nothing but their
 * connection; a caller with `waiting` requests in line has further ones refused. So however many
 * requests one account keeps in flight, and however large its answers, everyone else's requests
 * keep starting at once.
 */
export class CallerGate {
  readonly #lines = new Map<string, CallerLine>();
  readonly #now: () => number;

  constructor(private readonly options: CallerGateOptions) {
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * A turn for a request of `caller`: resolves with its release when the request may start;
   * undefined at once when the caller's line is full, and after `maxWaitMs` in line. `gone`
   * aborts a request still waiting (its client left): it leaves the line without a turn.
   */
  enter(caller: string, gone: AbortSignal): Promise<Release | undefined> {
    const line = this.#line(caller);
    if (line.waiting.length === 0 && this.#mayStart(line)) {
      line.running++;
      return Promise.resolve(this.#release(caller, line));
    }
    if (line.waiting.length >= this.options.waiting) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(expiry);
          clearInterval(recheck);
          gone.removeEventListener('abort', leave);
          line.running++;
          resolve(this.#release(caller, line));
        },
      };
      const leave = (): void => {
        clearTimeout(expiry);
        clearInterval(recheck);
        gone.removeEventListener('abort', leave);
        const index = line.waiting.indexOf(waiter);
        if (index !== -1) line.waiting.splice(index, 1);
        this.#settle(caller, line);
        resolve(undefined);
      };
      // No request waits without end, whatever holds its line.
      const expiry = setTimeout(() => {
        this.options.onExpired?.(caller, { running: line.running, waiting: line.waiting.length, pacedForMs: Math.round(line.notBefore - this.#now()) });
        leave();
      }, this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
      // The line's own timer and releases start waiters; this looks again now and then regardless,
      // so that no wake-up lost to a timer's or a clock's quirk can hold a request until it expires.
      const recheck = setInterval(() => this.#pump(caller, line), RECHECK_MS);
      line.waiting.push(waiter);
      gone.addEventListener('abort', leave, { once: true });
      this.#pump(caller, line);
    });
  }

  /** Requests of `caller` worked on now (for tests and metrics). */
  running(caller: string): number {
    return this.#lines.get(caller)?.running ?? 0;
  }

  #line(caller: string): CallerLine {
    let line = this.#lines.get(caller);
    if (line === undefined) {
      line = { running: 0, waiting: [], notBefore: 0 };
      this.#lines.set(caller, line);
    }
    return line;
  }

  #mayStart(line: CallerLine): boolean {
    return line.running < this.options.inFlight && this.#now() >= line.notBefore;
  }

  #release(caller: string, line: CallerLine): Release {
    let released = false;
    return (answerBytes) => {
      if (released) return;
      released = true;
      line.running--;
      line.notBefore = Math.max(this.#now(), line.notBefore) + (Math.max(0, answerBytes) / this.options.bytesPerSecond) * 1000;
      this.#pump(caller, line);
    };
  }

  /** Starts waiting requests while the caller may start one; waits for `notBefore` when that is what holds them. */
  #pump(caller: string, line: CallerLine): void {
    while (line.waiting.length > 0 && this.#mayStart(line)) line.waiting.shift()!.start();
    this.#settle(caller, line);
  }

  /** Arms the timer that resumes the line once its answers are paid off, or forgets an idle, paid-off line. */
  #settle(caller: string, line: CallerLine): void {
    const wait = line.notBefore - this.#now();
    if (wait > 0 && line.timer === undefined && (line.waiting.length > 0 || line.running === 0)) {
      line.timer = setTimeout(() => {
        line.timer = undefined;
        this.#pump(caller, line);
      }, wait);
      line.timer.unref();
      return;
    }
    // Only this line: a timer of a line forgotten earlier must not forget its successor.
    if (wait <= 0 && line.running === 0 && line.waiting.length === 0 && this.#lines.get(caller) === line) this.#lines.delete(caller);
  }
}

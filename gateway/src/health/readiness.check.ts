/** One dependency the gateway needs to serve: a name shown on /readyz and how to probe it. */
export interface DependencyCheck {
  readonly name: string;
  /** Resolves true when the dependency answers; false or a rejection means it is down. */
  check(): Promise<boolean>;
}

/** The answer of a readiness probe; `down` names the failing dependencies, nothing more. */
export interface ReadinessResult {
  readonly ready: boolean;
  readonly down: readonly string[];
  /** True once the process is shutting down: it reports not ready whatever its dependencies say. */
  readonly draining: boolean;
}

/** Options of {@link createReadinessCheck}. */
export interface ReadinessOptions {
  /** How long a result is reused (default 1000 ms), so probes cannot overload the backends. */
  readonly cacheMs?: number;
  /** A check that takes longer than this counts as down (default 1000 ms). */
  readonly timeoutMs?: number;
}

/** Readiness of the process: all dependencies up and not draining. */
export interface ReadinessCheck {
  /** Checks every dependency in parallel, or reuses a result younger than `cacheMs`; concurrent callers share one round of checks. */
  status(): Promise<ReadinessResult>;
  /** From now on report not ready (graceful shutdown: load balancers stop sending traffic). */
  drain(): void;
}

/** Creates the readiness check over `checks`; a process with no dependencies is ready. */
export function createReadinessCheck(checks: readonly DependencyCheck[], options: ReadinessOptions = {}): ReadinessCheck {
  const cacheMs = options.cacheMs ?? 1_000;
  const timeoutMs = options.timeoutMs ?? 1_000;
  let cached: { readonly at: number; readonly result: ReadinessResult } | undefined;
  let inFlight: Promise<ReadinessResult> | undefined;
  let draining = false;

  const run = async (): Promise<ReadinessResult> => {
    const outcomes = await Promise.all(checks.map((dependency) => withTimeout(dependency.check(), timeoutMs)));
    const down = checks.filter((_, index) => !outcomes[index]).map((dependency) => dependency.name);
    return { ready: down.length === 0 && !draining, down, draining };
  };

  return {
    status() {
      if (draining) return Promise.resolve({ ready: false, down: cached?.result.down ?? [], draining: true });
      if (cached !== undefined && performance.now() - cached.at < cacheMs) return Promise.resolve(cached.result);
      inFlight ??= run().then((result) => {
        cached = { at: performance.now(), result };
        inFlight = undefined;
        return result;
      });
      return inFlight;
    },
    drain() {
      draining = true;
    },
  };
}

async function withTimeout(check: Promise<boolean>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([check.then((up) => up === true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

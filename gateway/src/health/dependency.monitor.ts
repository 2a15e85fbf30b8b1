import type { Logger } from '@inkwell/logging';
import { Gauge, type Registry } from 'prom-client';

/** One dependency of the gateway: a name shown on /readyz and in metrics, and how to probe it. */
export interface DependencyCheck {
  readonly name: string;
  /** Resolves true when the dependency answers; false or a rejection means it is down. */
  check(): Promise<boolean>;
}

/** What the gateway last learnt about a dependency; `unknown` until its first check has finished. */
export type DependencyState = 'up' | 'down' | 'unknown';

/** Options of {@link createDependencyMonitor}. */
export interface DependencyMonitorOptions {
  /** Time between two rounds of checks (default 1000 ms). */
  readonly intervalMs?: number;
  /** A check that takes longer than this counts as down (default 800 ms). */
  readonly timeoutMs?: number;
  /**
   * Time until a dependency found down is checked again, between the rounds (default 250 ms): a
   * backend back from a restart is used again within this much of answering, while one that is up
   * costs no more checks than the rounds.
   */
  readonly downIntervalMs?: number;
  /** Registry that gets the gauge `gateway_dependency_up{dependency}` (1 up, 0 down). */
  readonly registry?: Registry;
  /**
   * Where a change of state is logged, once per change: `warn` when a dependency is found down,
   * `info` when one found down answers again (its refused requests are logged at info only).
   */
  readonly logger?: Pick<Logger, 'warn' | 'info'>;
}

/**
 * Keeps the state of every dependency current by checking all of them in the background, so that
 * readiness probes and requests read a state instead of waiting for a check (docs/api/foundation.md,
 * "Readiness and backend outages").
 */
export interface DependencyMonitor {
  /** The last known state of every dependency, by name, in the order of the checks. */
  states(): Readonly<Record<string, DependencyState>>;
  /** True only when the last finished check of `name` found it down. */
  isDown(name: string): boolean;
  /** Checks `name` again now (e.g. after a call to it failed), unless a check of it is running. */
  recheck(name: string): void;
  /** Runs one round of every check now and resolves when it is done. */
  checkAll(): Promise<void>;
  /** Starts the background rounds (the first at once); main.ts calls it once the server listens, so that start-up work does not time the first checks out. */
  start(): void;
  /** Stops the background checks (at shutdown). */
  close(): void;
}

/**
 * Creates the monitor of `checks`, which checks all of them every `intervalMs` once started, and
 * one found down again every `downIntervalMs` until it is up. The timers do not keep the process alive. Each dependency's state changes only when one of its
 * checks finishes.
 */
export function createDependencyMonitor(checks: readonly DependencyCheck[], options: DependencyMonitorOptions = {}): DependencyMonitor {
  const intervalMs = options.intervalMs ?? 1_000;
  const timeoutMs = options.timeoutMs ?? 800;
  const downIntervalMs = options.downIntervalMs ?? 250;
  let started = false;
  /** The one pending recheck of each dependency found down (rounds and rechecks must not each start a chain of their own). */
  const rechecks = new Map<string, NodeJS.Timeout>();
  const states = new Map<string, DependencyState>(checks.map((dependency) => [dependency.name, 'unknown']));
  const running = new Map<string, Promise<void>>();
  const gauge =
    options.registry &&
    new Gauge({
      name: 'gateway_dependency_up',
      help: 'Whether the gateway reached the dependency (a gRPC backend or redis) at its last check: 1 up, 0 down.',
      labelNames: ['dependency'] as const,
      registers: [options.registry],
    });

  const checkOne = (dependency: DependencyCheck): Promise<void> => {
    let inFlight = running.get(dependency.name);
    if (inFlight === undefined) {
      inFlight = withTimeout(dependency.check(), timeoutMs).then((up) => {
        const previous = states.get(dependency.name);
        states.set(dependency.name, up ? 'up' : 'down');
        if (!up && previous !== 'down') options.logger?.warn({ dependency: dependency.name }, 'dependency down: its routes answer 503 until it is back');
        if (up && previous === 'down') options.logger?.info({ dependency: dependency.name }, 'dependency up again');
        gauge?.set({ dependency: dependency.name }, up ? 1 : 0);
        running.delete(dependency.name);
        if (!up && started && !rechecks.has(dependency.name)) {
          const timer = setTimeout(() => {
            rechecks.delete(dependency.name);
            void checkOne(dependency);
          }, downIntervalMs);
          timer.unref();
          rechecks.set(dependency.name, timer);
        }
      });
      running.set(dependency.name, inFlight);
    }
    return inFlight;
  };
  const checkAll = async (): Promise<void> => {
    await Promise.all(checks.map(checkOne));
  };

  let timer: NodeJS.Timeout | undefined;

  return {
    states: () => Object.fromEntries(states),
    isDown: (name) => states.get(name) === 'down',
    recheck(name) {
      const dependency = checks.find((candidate) => candidate.name === name);
      if (dependency !== undefined) void checkOne(dependency);
    },
    checkAll,
    start() {
      if (timer !== undefined) return;
      started = true;
      void checkAll();
      timer = setInterval(() => void checkAll(), intervalMs);
      timer.unref();
    },
    close() {
      started = false;
      for (const timer of rechecks.values()) clearTimeout(timer);
      rechecks.clear();
      clearInterval(timer);
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

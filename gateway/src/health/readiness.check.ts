import type { DependencyMonitor, DependencyState } from './dependency.monitor.js';

/** The answer of a readiness probe, with every dependency's state for operators. */
export interface ReadinessResult {
  /** True while the process serves: it is not draining. Dependencies do not decide it. */
  readonly ready: boolean;
  /** True once the process is shutting down. */
  readonly draining: boolean;
  /** The last known state of every dependency (gRPC backends and redis). */
  readonly dependencies: Readonly<Record<string, DependencyState>>;
  /** Names of the dependencies found down at their last check. */
  readonly down: readonly string[];
}

/** Readiness of the gateway process. */
export interface ReadinessCheck {
  /** The current readiness; never waits for a dependency (the monitor checks them in the background). */
  status(): ReadinessResult;
  /** From now on report not ready (graceful shutdown: load balancers stop sending traffic). */
  drain(): void;
  /** Whether `drain()` was called (cheap: for every request). */
  isDraining(): boolean;
}

/**
 * Creates the readiness of a gateway whose dependencies `monitor` watches. A gateway is ready
 * while it runs and is not draining: a backend that is down makes the routes that need it answer
 * 503, and Redis being down makes rate limits fail open, but neither is fixed by taking this
 * gateway out of rotation, since every gateway pod shares them (docs/api/foundation.md,
 * "Readiness and backend outages").
 */
export function createReadinessCheck(monitor: DependencyMonitor): ReadinessCheck {
  let draining = false;
  return {
    status() {
      const dependencies = monitor.states();
      const down = Object.keys(dependencies).filter((name) => dependencies[name] === 'down');
      return { ready: !draining, draining, dependencies, down };
    },
    drain() {
      draining = true;
    },
    isDraining() {
      return draining;
    },
  };
}

import { AppError, ErrorCode, isAppError } from '@inkwell/errors';
import { Counter, type Registry } from 'prom-client';
import type { DependencyMonitor } from '../health/dependency.monitor.js';
import { BACKEND_OF, type GrpcBackends } from './grpc.backends.js';

/** Dependencies of {@link guardBackends}. */
export interface BackendGuardDeps {
  readonly monitor: DependencyMonitor;
  /** Registry that gets `gateway_backend_unavailable_total{backend,reason}`. */
  readonly registry: Registry;
}

/** Methods of a GrpcClient that are not RPCs of the backend's service. */
const CLIENT_METHODS = new Set(['close', 'checkHealth']);

/**
 * Wraps every backend's client so that an outage of one backend is answered at once
 * (docs/api/foundation.md, "Readiness and backend outages"): while the monitor found the backend
 * down at its last check, its RPCs fail immediately with UNAVAILABLE (503 `unavailable` with
 * `Retry-After`) instead of waiting for a connection or the call deadline; a call that fails with
 * UNAVAILABLE or DEADLINE_EXCEEDED makes the monitor check that backend again at once. Each such
 * failure is counted in `gateway_backend_unavailable_total{backend,reason}` (`reason`:
 * `known_down`, `unavailable`, `deadline_exceeded`). Other backends are not affected.
 */
export function guardBackends(backends: GrpcBackends, { monitor, registry }: BackendGuardDeps): GrpcBackends {
  const failures = new Counter({
    name: 'gateway_backend_unavailable_total',
    help: 'gRPC calls of the gateway that failed because the backend was unavailable, by backend and reason (known_down: refused without calling while the last health check failed).',
    labelNames: ['backend', 'reason'] as const,
    registers: [registry],
  });
  const guarded: Record<string, unknown> = {};
  for (const [clientName, client] of Object.entries(backends) as [keyof GrpcBackends, Record<string, unknown>][]) {
    // The dependency is the backend process: a client served by another service's process shares its state.
    const name = BACKEND_OF[clientName] ?? clientName;
    const wrapped: Record<string, unknown> = { ...client };
    for (const [method, call] of Object.entries(client)) {
      if (CLIENT_METHODS.has(method) || typeof call !== 'function') continue;
      wrapped[method] = async (...args: unknown[]): Promise<unknown> => {
        if (monitor.isDown(name)) {
          failures.inc({ backend: name, reason: 'known_down' });
          // Expected while the monitor knows it down: logged as one line, the outage itself once by the monitor.
          throw new AppError(ErrorCode.UNAVAILABLE, `The ${name} service is unavailable.`, { expected: true });
        }
        try {
          return await (call as (...callArgs: unknown[]) => Promise<unknown>)(...args);
        } catch (error) {
          if (isAppError(error) && (error.code === ErrorCode.UNAVAILABLE || error.code === ErrorCode.DEADLINE_EXCEEDED)) {
            failures.inc({ backend: name, reason: error.code === ErrorCode.UNAVAILABLE ? 'unavailable' : 'deadline_exceeded' });
            monitor.recheck(name);
          }
          throw error;
        }
      };
    }
    guarded[clientName] = wrapped;
  }
  return guarded as unknown as GrpcBackends;
}

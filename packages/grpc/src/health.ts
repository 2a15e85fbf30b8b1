import type { ServerWritableStream } from '@grpc/grpc-js';
import { AppError, ErrorCode } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { HealthCheckResponse_ServingStatus as ServingStatus, type HealthCheckRequest } from '@inkwell/proto/health';

interface Watcher {
  service: string;
  onStatus: (status: ServingStatus) => void;
  onEnd: () => void;
}

/**
 * The serving status of each service of one server, as reported by `grpc.health.v1.Health`.
 * The empty name `""` is the server as a whole and starts SERVING. After `shutdown()` every
 * service reports NOT_SERVING for good (later `setServing` calls are ignored) and open Watch
 * streams are ended, so load balancers drain the server before it goes away.
 */
export class HealthStatus {
  readonly #statuses = new Map<string, ServingStatus>([['', ServingStatus.SERVING]]);
  readonly #watchers = new Set<Watcher>();
  #terminal = false;

  /** Marks `serviceName` (a fully qualified name such as `inkwell.users.v1.UsersService`, or `""`) as serving or not. */
  setServing(serviceName: string, serving: boolean): void {
    if (this.#terminal) return;
    this.#set(serviceName, serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  }

  /** The status of `serviceName`, or undefined when the server does not know the service. */
  status(serviceName: string): ServingStatus | undefined {
    return this.#statuses.get(serviceName);
  }

  /**
   * Calls `onStatus` now with the current status (SERVICE_UNKNOWN for an unknown service) and
   * again on every change, until the returned function is called or the server shuts down
   * (`onEnd` is then called once).
   */
  watch(serviceName: string, onStatus: (status: ServingStatus) => void, onEnd: () => void): () => void {
    onStatus(this.#statuses.get(serviceName) ?? ServingStatus.SERVICE_UNKNOWN);
    if (this.#terminal) {
      queueMicrotask(onEnd);
      return () => {};
    }
    const watcher: Watcher = { service: serviceName, onStatus, onEnd };
    this.#watchers.add(watcher);
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  /** Reports every service NOT_SERVING from now on and ends all Watch streams. */
  shutdown(): void {
    if (this.#terminal) return;
    this.#terminal = true;
    for (const serviceName of this.#statuses.keys()) this.#set(serviceName, ServingStatus.NOT_SERVING);
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const watcher of watchers) watcher.onEnd();
  }

  #set(serviceName: string, status: ServingStatus): void {
    if (this.#statuses.get(serviceName) === status) return;
    this.#statuses.set(serviceName, status);
    for (const watcher of this.#watchers) {
      if (watcher.service === serviceName) watcher.onStatus(status);
    }
  }
}

/**
 * Health/Check: the status of the named service; an unknown name is NOT_FOUND as the protocol
 * requires.
 */
export function checkHealth(health: HealthStatus, request: HealthCheckRequest): { status: ServingStatus } {
  const status = health.status(request.service);
  if (status === undefined) throw new AppError(ErrorCode.NOT_FOUND, `Unknown service "${request.service}".`);
  return { status };
}

/**
 * Health/Watch as a grpc-js server-streaming handler: sends the current status (SERVICE_UNKNOWN
 * for an unknown service, which keeps the stream open in case it appears) and then every change
 * until the client cancels or the server shuts down.
 */
export function createWatchHandler(health: HealthStatus, logger: Logger): (call: ServerWritableStream<HealthCheckRequest, unknown>) => void {
  return (call) => {
    const started = performance.now();
    const service = call.request.service;
    let ended = false;
    const finish = (code: string): void => {
      if (ended) return;
      ended = true;
      unsubscribe();
      logger.debug({ method: '/grpc.health.v1.Health/Watch', service, code, durationMs: Math.round(performance.now() - started) }, 'grpc call');
    };
    const unsubscribe = health.watch(
      service,
      (status) => {
        if (!ended && !call.cancelled) call.write({ status });
      },
      () => {
        finish('OK');
        call.end();
      },
    );
    call.on('cancelled', () => finish('CANCELLED'));
  };
}

import type { Logger } from '@inkwell/logging';
import type { MetricsServer } from './metrics.js';
import type { GrpcServer } from './server.js';

/** One thing a service closes when it shuts down. */
export interface Closer {
  /** Named in the log when it fails or is still running at the deadline. */
  name: string;
  close(): Promise<unknown> | void;
}

/** Options of {@link shutdownOnSignals}. */
export interface ShutdownOptions {
  logger: Logger;
  /** Run in this order, each after the previous one settled; a failing one is logged and the rest still run. */
  closers: readonly Closer[];
  /** Longest the whole sequence may take (default 15 s); then the process exits with status 1. */
  deadlineMs?: number;
  /** Ends the process (default `process.exit`); tests pass their own. */
  exit?: (code: number) => void;
  /** Signals that start the shutdown (default SIGTERM and SIGINT). */
  signals?: readonly NodeJS.Signals[];
}

/** A shutdown sequence registered on the process's signals. */
export interface Shutdown {
  /** Runs the sequence (once, however often it is called or signalled) and then exits. */
  run(reason: string): Promise<void>;
}

/**
 * The one shutdown sequence of a service: on the first SIGTERM or SIGINT, closes `closers` in
 * order (stop serving first, close the stores last), then exits with 0, or with 1 when a closer
 * failed or the deadline passed first (then the closers still running are named in the log).
 * Later signals do nothing more: the sequence runs once.
 */
export function shutdownOnSignals(options: ShutdownOptions): Shutdown {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const deadlineMs = options.deadlineMs ?? 15_000;
  let running: Promise<void> | undefined;
  const run = (reason: string): Promise<void> => {
    running ??= closeAll(reason);
    return running;
  };
  async function closeAll(reason: string): Promise<void> {
    options.logger.info({ reason }, 'shutting down');
    let current = '';
    let failed = false;
    const sequence = (async () => {
      for (const closer of options.closers) {
        current = closer.name;
        try {
          await closer.close();
        } catch (error) {
          failed = true;
          options.logger.error({ err: error, closer: closer.name }, 'shutdown step failed');
        }
      }
      return true;
    })();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), deadlineMs);
    });
    const finished = await Promise.race([sequence, deadline]);
    clearTimeout(timer);
    if (!finished) options.logger.error({ closer: current, deadlineMs }, 'shutdown deadline passed; exiting');
    exit(finished && !failed ? 0 : 1);
  }
  for (const signal of options.signals ?? ['SIGTERM', 'SIGINT']) process.on(signal, () => void run(signal));
  return { run };
}

/**
 * How long in-flight calls get once a service's server stops serving (docs/api/foundation.md,
 * "Service start-up and readiness"); a pod's termination grace period must cover it.
 */
export const SERVER_GRACE_MS = 5_000;

/**
 * How long a stopping service reports NOT_SERVING while it still answers, before it stops
 * accepting calls: the gateways check every backend's health once a second and stop sending to
 * one that is not serving, so the calls they send meanwhile are answered, not refused.
 */
export const SERVER_NOT_SERVING_FIRST_MS = 1_000;

/** What every service closes when it shuts down. */
export interface StandardParts {
  server: Pick<GrpcServer, 'shutdown'>;
  /** The service's Kafka work (`startEventWork` of @inkwell/events): its consumers and relay. */
  events: { stop(): Promise<unknown> };
  metricsServer: Pick<MetricsServer, 'close'>;
  /** The outbox and consumer-group gauges (`registerEventMetrics` of @inkwell/events). */
  eventMetrics: { close(): Promise<unknown> };
  /** The service's Postgres pool. */
  pool: { end(): Promise<unknown> };
}

/** What a service closes besides its {@link StandardParts}, by where it goes in the sequence. */
export interface ExtraClosers {
  /** Before the server stops, e.g. timers that would otherwise fire while the rest closes. */
  beforeServer?: readonly Closer[];
  /** Right after the Kafka work stopped, e.g. what only its consumers used. */
  afterEventWork?: readonly Closer[];
  /** After the metrics, before the pool: the other stores and clients. */
  beforePool?: readonly Closer[];
  /** After the pool, e.g. process-wide workers. */
  afterPool?: readonly Closer[];
}

/**
 * The closers of a service for {@link shutdownOnSignals}, in the documented order: the gRPC
 * server first (NOT_SERVING for `notServingFirstMs`, default 1 s, while it still answers, then
 * in-flight calls get 5 s), then the Kafka work, the metrics, the stores, and the pool; `extras`
 * go where they say.
 */
export function serviceClosers(parts: StandardParts, extras: ExtraClosers = {}, notServingFirstMs = SERVER_NOT_SERVING_FIRST_MS): Closer[] {
  return [
    ...(extras.beforeServer ?? []),
    { name: 'grpc server', close: () => parts.server.shutdown(SERVER_GRACE_MS, notServingFirstMs) },
    { name: 'kafka work', close: () => parts.events.stop() },
    ...(extras.afterEventWork ?? []),
    { name: 'metrics server', close: () => parts.metricsServer.close() },
    { name: 'event metrics', close: () => parts.eventMetrics.close() },
    ...(extras.beforePool ?? []),
    { name: 'database pool', close: () => parts.pool.end() },
    ...(extras.afterPool ?? []),
  ];
}

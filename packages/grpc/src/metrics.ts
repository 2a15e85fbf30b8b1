import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResponderBuilder, ServerInterceptingCall, ServerListenerBuilder, status, type ServerInterceptor } from '@grpc/grpc-js';
import type { Logger } from '@inkwell/logging';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** The Prometheus registry of a process (prom-client's), so services need not import prom-client. */
export type MetricsRegistry = Registry;

/**
 * How often the event loop's delay is sampled for `nodejs_eventloop_lag_*` (ms). prom-client's
 * 10 ms wakes an idle process a hundred times a second; ten samples a second still catch every
 * stall that matters to a request.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** A registry with Node's process metrics (`process_*`, `nodejs_*`), the same in every service and the gateway. */
export function createMetricsRegistry(): MetricsRegistry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

/** Seconds; gRPC calls of our services take from under a millisecond to a few seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A grpc-js server interceptor recording RED metrics of every call the server answers, in
 * `registry` (docs/api/foundation.md, "Service metrics"): `grpc_server_handled_total` (counter by
 * `grpc_service`, `grpc_method`, `grpc_code`, e.g. `inkwell.users.v1.UsersService`, `GetUser`,
 * `OK`) and `grpc_server_handling_seconds` (histogram by service and method, from the call's
 * arrival to its status). Calls refused before their handler (UNAUTHENTICATED) and health checks
 * count too; a call the client cancels counts as `CANCELLED`.
 */
export function grpcMetricsInterceptor(registry: MetricsRegistry): ServerInterceptor {
  const handled = new Counter({ name: 'grpc_server_handled_total', help: 'gRPC calls completed by the server, by service, method and status code.', labelNames: ['grpc_service', 'grpc_method', 'grpc_code'], registers: [registry] });
  const duration = new Histogram({ name: 'grpc_server_handling_seconds', help: 'Time from the arrival of a gRPC call to its status, by service and method.', labelNames: ['grpc_service', 'grpc_method'], buckets: DURATION_BUCKETS, registers: [registry] });
  return (descriptor, call) => {
    const [service = 'unknown', method = 'unknown'] = descriptor.path.replace(/^\//, '').split('/');
    const stop = duration.startTimer({ grpc_service: service, grpc_method: method });
    let done = false;
    const record = (code: status): void => {
      if (done) return;
      done = true;
      stop();
      handled.inc({ grpc_service: service, grpc_method: method, grpc_code: status[code] ?? String(code) });
    };
    const responder = new ResponderBuilder()
      .withStart((next) => {
        next(
          new ServerListenerBuilder()
            .withOnCancel(() => record(status.CANCELLED))
            .build(),
        );
      })
      .withSendStatus((sent, next) => {
        record(sent.code ?? status.UNKNOWN);
        next(sent);
      })
      .build();
    return new ServerInterceptingCall(call, responder);
  };
}

/** Options of {@link serveMetrics}. */
export interface MetricsServerOptions {
  registry: MetricsRegistry;
  /** Port of the endpoint (`<SERVICE>_METRICS_PORT`); 0 turns it off. */
  port: number;
  /** Interface to bind (default `0.0.0.0`: Prometheus scrapes the pod's address). */
  host?: string;
  logger: Logger;
}

/** A running metrics endpoint. */
export interface MetricsServer {
  /** The bound port; undefined when the endpoint is off. */
  readonly port: number | undefined;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (Prometheus text format) of `registry` on a small HTTP server of its own,
 * apart from the gRPC port; every other path is 404. Port 0 turns it off (nothing listens).
 */
export async function serveMetrics(options: MetricsServerOptions): Promise<MetricsServer> {
  if (options.port === 0) return { port: undefined, close: async () => {} };
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    options.registry.metrics().then(
      (text) => response.writeHead(200, { 'Content-Type': options.registry.contentType }).end(text),
      (error: unknown) => {
        options.logger.error({ err: error }, 'could not collect metrics');
        response.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ port }, 'metrics endpoint listening');
  return {
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

import { createMetricsRegistry } from '@inkwell/grpc';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Prometheus metrics of the gateway, in a registry of its own (not prom-client's global one). */
export interface HttpMetrics {
  readonly registry: Registry;
  /** Counts one finished request and its duration. `route` must be a pattern, never a raw path. */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/**
 * Creates the registry with Node's default process metrics plus `http_requests_total` and
 * `http_request_duration_seconds`, both labelled `method`, `route` (pattern) and `status`.
 * The buckets span 1 ms to 10 s around the gateway's measured p99 of tens of milliseconds.
 */
export function createHttpMetrics(): HttpMetrics {
  const registry = createMetricsRegistry();
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered by the gateway, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request arrival to the end of the response, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    registry,
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}

import type { ServerResponse } from 'node:http';
import type { GatewayRequest } from '../http/request-state.js';
import type { ReadinessCheck } from './readiness.check.js';

/** A request handler as mounted on express-gateway's express app. */
export type PlainHandler = (req: GatewayRequest, res: ServerResponse) => void;

/** The operational endpoints outside the API on the public listener: liveness and readiness (metrics have a port of their own). */
export interface HealthRoutes {
  readonly healthz: PlainHandler;
  readonly readyz: PlainHandler;
}

/** Dependencies of the health routes. */
export interface HealthRoutesDeps {
  readonly readiness: ReadinessCheck;
}

const HEALTHY = JSON.stringify({ status: 'ok' });

/**
 * `GET /healthz`: 200 `{"status":"ok"}` while the process runs. `GET /readyz`: 200 while the
 * process serves, with the last known state of every dependency:
 * `{"status":"ok","dependencies":{"users":"up","messaging":"down",…,"redis":"up"},"down":["messaging"]}`;
 * 503 with `"status":"draining"` (same fields) only during shutdown (docs/api/foundation.md,
 * "Readiness and backend outages"). Neither is cached by intermediaries; both are logged at debug
 * level so probes do not flood the access log. `GET /metrics` is not here: it is served on
 * GATEWAY_METRICS_PORT, never on the public listener (docs/api/foundation.md, "Service metrics").
 */
export function createHealthRoutes({ readiness }: HealthRoutesDeps): HealthRoutes {
  return {
    healthz(req, res) {
      markQuiet(req, '/healthz');
      send(res, 200, 'application/json', HEALTHY);
    },
    readyz(req, res) {
      markQuiet(req, '/readyz');
      const { ready, dependencies, down } = readiness.status();
      send(res, ready ? 200 : 503, 'application/json', JSON.stringify({ status: ready ? 'ok' : 'draining', dependencies, down }));
    },
  };
}

function markQuiet(req: GatewayRequest, route: string): void {
  const state = req.inkwell;
  if (state === undefined) return;
  state.route = route;
  state.quiet = true;
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

import type { ServerResponse } from 'node:http';
import { requestIdFrom } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import type { HttpMetrics } from './http.metrics.js';
import { UNMATCHED_ROUTE, type GatewayRequest, type RequestState } from './request-state.js';

const NO_SCOPES: readonly string[] = Object.freeze([]);

interface AccessLogLine {
  requestId: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  aborted?: true;
}

/** Dependencies of the request-context middleware. */
export interface RequestContextDeps {
  readonly logger: Logger;
  readonly metrics: HttpMetrics;
  /** True once the process is shutting down: every answer then closes its connection. */
  readonly draining?: () => boolean;
}

/**
 * The first step of every request (mounted app-wide, before health routes and API pipelines):
 * fixes the request id (the client's sane `X-Request-Id`, else a new UUID) and sends it back on
 * every response, creates the RequestState with the anonymous caller, and when the response is
 * done writes one access log line (request id, method, route pattern, status, duration in ms;
 * no URL, no headers, so no tokens) and records the metrics. A response the client abandoned
 * before it was complete is logged with `aborted: true`. While the gateway drains, every answer
 * carries `Connection: close`, so keep-alive clients take their next request to another gateway
 * instead of having it cut off when the grace period ends (docs/api/foundation.md, "Readiness and
 * backend outages").
 */
export function createRequestContext({ logger, metrics, draining }: RequestContextDeps): (req: GatewayRequest, res: ServerResponse, next: () => void) => void {
  return (req, res, next) => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const state: RequestState = {
      requestId,
      startedAt: performance.now(),
      caller: { requestId, scopes: NO_SCOPES },
      route: UNMATCHED_ROUTE,
      quiet: false,
      authFailure: undefined,
      rateKey: '',
      rateLimit: 0,
      rateWindow: undefined,
    };
    req.inkwell = state;
    res.setHeader('X-Request-Id', requestId);
    if (draining?.() === true) res.setHeader('Connection', 'close');
    res.once('close', () => {
      const durationMs = performance.now() - state.startedAt;
      const method = req.method ?? 'UNKNOWN';
      const status = res.statusCode;
      metrics.observe(method, state.route, status, durationMs / 1000);
      const line: AccessLogLine = { requestId, method, route: state.route, status, durationMs: Math.round(durationMs * 100) / 100 };
      if (!res.writableFinished) line.aborted = true;
      if (state.quiet) logger.debug(line, 'request');
      else logger.info(line, 'request');
    });
    next();
  };
}

import type { ServerResponse } from 'node:http';
import type { Logger } from '@inkwell/logging';
import type { Counter } from 'prom-client';
import type { EgPolicy } from '../eg.types.js';
import { sendJsonApi } from '../../http/api-response.js';
import { requestState } from '../../http/request-state.js';
import { errorDocument } from '../../jsonapi/error.mapping.js';
import type { FixedWindowLimiter, RateLimitWindow } from '../../ratelimit/fixed-window.limiter.js';

/** Dependencies of the rate-limit policy. */
export interface RateLimitDeps {
  readonly limiter: FixedWindowLimiter;
  readonly logger: Logger;
  /** Counts requests let through because the count was unknown (Redis down or slow). */
  readonly failOpen: Counter<'reason'>;
  /** A log line about failing open at most this often (ms). */
  readonly logIntervalMs?: number;
}

/**
 * Rate limits of docs/api/auth.md, "Rate limits", after bearer-auth chose the window (`state.rateKey`: the
 * token's user's or app's, or the client address's) and its allowance. One Redis round trip per request (see
 * FixedWindowLimiter). Every response that follows carries `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` (seconds), errors included, because they are set
 * before the request goes on; over the allowance it answers `429 rate_limited` with
 * `Retry-After` (the same seconds as RateLimit-Reset).
 *
 * When Redis is down or the script fails, the request goes through without the headers (fail
 * open: a limiter outage must not take the API down); each such request is counted in the
 * `gateway_rate_limit_fail_open_total` metric and logged at most once per `logIntervalMs`.
 * A request without a window (`rateKey` empty) is not limited; one that bearer-auth already
 * counted (`rateWindow`, a token looked up after counting) is answered from that count.
 */
export function createRateLimitPolicy(deps: RateLimitDeps): EgPolicy {
  const { limiter, logger, failOpen } = deps;
  const logIntervalMs = deps.logIntervalMs ?? 10_000;
  let lastLogged = 0;
  const reportFailOpen = (reason: 'redis_not_ready' | 'redis_error', error?: unknown): void => {
    failOpen.inc({ reason });
    const now = Date.now();
    if (now - lastLogged < logIntervalMs) return;
    lastLogged = now;
    logger.warn({ err: error, reason }, 'rate limiting is failing open: the request count is unknown');
  };

  return {
    name: 'rate-limit',
    schema: { $id: 'https://inkwell.dev/schemas/policies/rate-limit.json', type: 'object', properties: {} },
    policy: () => (req, res, next) => {
      const state = requestState(req);
      if (state.rateKey === '') {
        next();
        return;
      }
      const answer = (window: RateLimitWindow): void => {
        setHeaders(res, window);
        if (!window.exceeded) {
          next();
          return;
        }
        const detail = `Rate limit of ${window.limit} requests exceeded; try again in ${window.resetSeconds} s.`;
        sendJsonApi(res, 429, errorDocument('rate_limited', detail), { 'Retry-After': String(window.resetSeconds) });
      };
      if (state.rateWindow !== undefined) {
        answer(state.rateWindow);
        return;
      }
      limiter.hit(state.rateKey, state.rateLimit).then(
        (window) => {
          if (window === undefined) {
            reportFailOpen('redis_not_ready');
            next();
            return;
          }
          answer(window);
        },
        (error: unknown) => {
          reportFailOpen('redis_error', error);
          next();
        },
      );
    },
  };
}

function setHeaders(res: ServerResponse, window: RateLimitWindow): void {
  res.setHeader('RateLimit-Limit', window.limit);
  res.setHeader('RateLimit-Remaining', window.remaining);
  res.setHeader('RateLimit-Reset', window.resetSeconds);
}

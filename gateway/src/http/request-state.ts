import type { IncomingMessage } from 'node:http';
import type { AppError } from '@inkwell/errors';
import type { CallerContext } from '@inkwell/grpc';
import type { RateLimitWindow } from '../ratelimit/fixed-window.limiter.js';

/** Route label of requests that matched no route (keeps metric labels bounded). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * What the gateway knows about one request while it runs; created first by the request-context
 * middleware and read by every later step.
 *
 * `caller` is the seam for authentication: request-context sets it to the anonymous caller
 * (`{ requestId, scopes: [] }`); the auth policy, which runs in the API pipeline before
 * `api-dispatch`, replaces it with the token's `userId`/`appId`/`scopes`. Handlers only ever see
 * the caller through `ApiRequest.caller` and pass it on to gRPC calls unchanged.
 */
export interface RequestState {
  readonly requestId: string;
  /** `performance.now()` when the request arrived. */
  readonly startedAt: number;
  caller: CallerContext;
  /** Route pattern for logs and metrics (`/api/v1/users/:id`), never the raw path. */
  route: string;
  /** Probe and scrape requests are logged at debug level only. */
  quiet: boolean;
  /**
   * Set by the bearer-auth policy: why the request has no valid token (`invalid_token`, or
   * `unavailable` when the token could not be checked). The require-auth policy answers it after
   * rate limiting has counted the request. Undefined: authenticated, or not checked at all.
   */
  authFailure: AppError | undefined;
  /** Set by bearer-auth: the rate-limit window of the request (`u:<user id>`, `app:<client id>` or `a:<address>`); empty when not limited. */
  rateKey: string;
  /** Set by bearer-auth: the allowance of that window. */
  rateLimit: number;
  /**
   * Set by bearer-auth when it already counted the request on `rateKey`'s window (a token that
   * was not cached is counted on the client address's window before it is looked up): the
   * rate-limit policy then answers from this window instead of counting again.
   */
  rateWindow: RateLimitWindow | undefined;
}

/** The request objects express-gateway hands to policies and gateway routes, with our state. */
export interface GatewayRequest extends IncomingMessage {
  inkwell?: RequestState;
  /** Set by express: the URL as received, before any router rewrote `url`. */
  originalUrl?: string;
}

/** The state of `req`; throws when the request-context middleware did not run (a wiring bug). */
export function requestState(req: GatewayRequest): RequestState {
  const state = req.inkwell;
  if (state === undefined) throw new Error('request-context middleware did not run before this step');
  return state;
}

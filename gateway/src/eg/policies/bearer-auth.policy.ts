import { AppError, ErrorCode } from '@inkwell/errors';
import { bearerToken } from '../../auth/bearer-token.js';
import { clientAddress } from '../../auth/client-address.js';
import type { AccessTokenResolver, ResolvedToken } from '../../auth/access-token.resolver.js';
import type { EgPolicy } from '../eg.types.js';
import { requestState, type GatewayRequest, type RequestState } from '../../http/request-state.js';
import type { FixedWindowLimiter, RateLimitWindow } from '../../ratelimit/fixed-window.limiter.js';

/** Dependencies of the bearer-auth policy. */
export interface BearerAuthDeps {
  readonly resolver: AccessTokenResolver;
  /** Allowance of a principal's window (a user's, or an app's for app-only tokens) and of an address's window (docs/api/auth.md, "Rate limits"). */
  readonly tokenLimit: number;
  readonly anonymousLimit: number;
  /** Believe X-Forwarded-For for the client address (see clientAddress). */
  readonly trustProxy: boolean;
  /** The API's fixed-window limiter: a token that is not cached is counted on the address's window before it is looked up. */
  readonly limiter: FixedWindowLimiter;
}

const NO_CREDENTIALS_MESSAGE = 'This request needs an access token: send Authorization: Bearer <token>.';
const INVALID_TOKEN_MESSAGE = 'The access token is malformed, unknown, expired or revoked.';

/**
 * The first policy of the API pipeline: who is calling (docs/api/auth.md, "The token check on API requests"). It never answers: it
 * records the outcome in the request state, so that rate limiting counts the request against
 * the right window before any answer (rate-limit headers are on every response, errors
 * included), and require-auth then answers a failure.
 *
 * - A valid `Authorization: Bearer <token>` → `caller` = { userId, appId, scopes } of the token
 *   and its principal's window (`u:<user id>`, or `app:<client id>` for an app-only token;
 *   tokenLimit), shared by all the principal's tokens.
 * - No Authorization header → `authFailure` 401 invalid_token (the challenge carries no error
 *   code, RFC 6750 §3.1); an empty or malformed header, another scheme, an unknown, expired or
 *   revoked token → 401 invalid_token (`error="invalid_token"`). Both share the client address's
 *   window (`a:<address>`, anonymousLimit).
 * - The token could not be checked (users service down on a cache miss) → 503 unavailable,
 *   counted on the address's window.
 *
 * A cached token costs a hash and a map lookup: no network round trip, no promise. A token the
 * cache does not know is counted on the client address's window BEFORE the users service is
 * asked (docs/api/auth.md, "Rate limits"): over that allowance the request is answered 429
 * without a lookup, so a flood of made-up tokens costs at most the anonymous allowance in
 * lookups. When the token turns out valid, that count is taken back and the request is counted
 * on its principal's window instead (by the rate-limit policy). Redis being unavailable for this
 * count does not stop the lookup (fail open, like the rate-limit policy).
 */
export function createBearerAuthPolicy(deps: BearerAuthDeps): EgPolicy {
  const { resolver, tokenLimit, anonymousLimit, trustProxy, limiter } = deps;
  const noCredentials = new AppError(ErrorCode.UNAUTHENTICATED, NO_CREDENTIALS_MESSAGE, { details: [{ reason: 'invalid_token', detail: NO_CREDENTIALS_MESSAGE }] });
  const invalidToken = new AppError(ErrorCode.UNAUTHENTICATED, INVALID_TOKEN_MESSAGE, { details: [{ reason: 'invalid_token', detail: INVALID_TOKEN_MESSAGE }] });

  const anonymous = (req: GatewayRequest, state: RequestState, failure: AppError, counted?: RateLimitWindow): void => {
    state.authFailure = failure;
    state.rateKey = `a:${clientAddress(req, trustProxy)}`;
    state.rateLimit = anonymousLimit;
    state.rateWindow = counted;
  };
  /** Counts a request on its address's window before the lookup; undefined when the count is unknown (Redis unavailable: fail open). */
  const countBeforeLookup = async (key: string): Promise<RateLimitWindow | undefined> => {
    try {
      return await limiter.hit(key, anonymousLimit);
    } catch {
      return undefined;
    }
  };
  const lookUp = async (req: GatewayRequest, state: RequestState, token: string): Promise<void> => {
    const addressKey = `a:${clientAddress(req, trustProxy)}`;
    const counted = await countBeforeLookup(addressKey);
    if (counted?.exceeded === true) return anonymous(req, state, invalidToken, counted);
    let found: ResolvedToken | null;
    try {
      found = await resolver.lookUp(token);
    } catch (error) {
      // Logged once, when require-auth answers it (sendApiError logs 503s with their cause).
      return anonymous(req, state, new AppError(ErrorCode.UNAVAILABLE, 'The access token could not be checked.', { cause: error }), counted);
    }
    if (found === null) return anonymous(req, state, invalidToken, counted);
    if (counted !== undefined) limiter.refund(addressKey).catch(() => undefined);
    authenticated(state, found);
  };
  const authenticated = (state: RequestState, token: ResolvedToken): void => {
    state.caller = { requestId: state.requestId, userId: token.userId, appId: token.appId, scopes: token.scopes };
    state.rateKey = token.rateKey;
    state.rateLimit = tokenLimit;
  };

  return {
    name: 'bearer-auth',
    schema: { $id: 'https://inkwell.dev/schemas/policies/bearer-auth.json', type: 'object', properties: {} },
    policy: () => (req, _res, next) => {
      const state = requestState(req);
      const header = req.headers.authorization;
      if (header === undefined) {
        anonymous(req, state, noCredentials);
        next();
        return;
      }
      const token = bearerToken(header);
      const cached = token === undefined ? null : resolver.cached(token);
      if (cached === null) {
        anonymous(req, state, invalidToken);
        next();
        return;
      }
      if (cached !== undefined) {
        authenticated(state, cached);
        next();
        return;
      }
      lookUp(req, state, token as string).then(
        () => next(),
        (error: unknown) => next(error),
      );
    },
  };
}

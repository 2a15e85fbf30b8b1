import { AppError, ErrorCode } from '@inkwell/errors';
import { bearerToken } from '../auth/bearer-token.js';
import { clientAddress } from '../auth/client-address.js';
import type { AccessTokenResolver, ResolvedToken } from '../auth/access-token.resolver.js';
import type { EgPolicy } from '../eg/eg.types.js';
import { requestState, type GatewayRequest, type RequestState } from '../http/request-state.js';

/** Dependencies of the bearer-auth policy. */
export interface BearerAuthDeps {
  readonly resolver: AccessTokenResolver;
  /** Allowance of a token's window and of an address's window (contract §9). */
  readonly tokenLimit: number;
  readonly anonymousLimit: number;
  /** Believe X-Forwarded-For for the client address (see clientAddress). */
  readonly trustProxy: boolean;
}

const NO_CREDENTIALS_MESSAGE = 'This request needs an access token: send Authorization: Bearer <token>.';
const INVALID_TOKEN_MESSAGE = 'The access token is malformed, unknown, expired or revoked.';

/**
 * The first policy of the API pipeline: who is calling (contract §5). It never answers: it
 * records the outcome in the request state, so that rate limiting counts the request against
 * the right window before any answer (rate-limit headers are on every response, errors
 * included), and require-auth then answers a failure.
 *
 * - A valid `Authorization: Bearer <token>` → `caller` = { userId, appId, scopes } of the token
 *   and the token's own window (`t:<hash>`, tokenLimit).
 * - No Authorization header → `authFailure` 401 invalid_token (the challenge carries no error
 *   code, RFC 6750 §3.1); an empty or malformed header, another scheme, an unknown, expired or
 *   revoked token → 401 invalid_token (`error="invalid_token"`). Both share the client address's
 *   window (`a:<address>`, anonymousLimit).
 * - The token could not be checked (users service down on a cache miss) → 503 unavailable,
 *   counted on the address's window.
 *
 * A cached token costs a hash and a map lookup: no network round trip, no promise.
 */
export function createBearerAuthPolicy(deps: BearerAuthDeps): EgPolicy {
  const { resolver, tokenLimit, anonymousLimit, trustProxy } = deps;
  const noCredentials = new AppError(ErrorCode.UNAUTHENTICATED, NO_CREDENTIALS_MESSAGE, { details: [{ reason: 'invalid_token', detail: NO_CREDENTIALS_MESSAGE }] });
  const invalidToken = new AppError(ErrorCode.UNAUTHENTICATED, INVALID_TOKEN_MESSAGE, { details: [{ reason: 'invalid_token', detail: INVALID_TOKEN_MESSAGE }] });

  const anonymous = (req: GatewayRequest, state: RequestState, failure: AppError): void => {
    state.authFailure = failure;
    state.rateKey = `a:${clientAddress(req, trustProxy)}`;
    state.rateLimit = anonymousLimit;
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
      const resolved = token === undefined ? null : resolver.resolve(token);
      if (resolved === null) {
        anonymous(req, state, invalidToken);
        next();
        return;
      }
      if (!(resolved instanceof Promise)) {
        authenticated(state, resolved);
        next();
        return;
      }
      resolved.then(
        (found) => {
          if (found === null) anonymous(req, state, invalidToken);
          else authenticated(state, found);
          next();
        },
        (error: unknown) => {
          // Logged once, when require-auth answers it (sendApiError logs 503s with their cause).
          anonymous(req, state, new AppError(ErrorCode.UNAVAILABLE, 'The access token could not be checked.', { cause: error }));
          next();
        },
      );
    },
  };
}

import type { ServerResponse } from 'node:http';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import type { UsersService } from '@inkwell/proto/users';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { EgApp } from '../../eg/eg.types.js';
import type { GatewayRequest } from '../../http/request-state.js';
import { repeatedParameters } from '../pages/form-body.reader.js';
import { methodNotAllowed } from './authorize.routes.js';
import { allowClientOrigin } from '../../cors/cors.middleware.js';
import type { WebOrigins } from '../../cors/web-origins.js';
import { claimedClientId, presentedClient } from './client-authentication.js';
import { OAuthFailure, readOAuthForm, sendOAuthFailure, sendOAuthJson } from './oauth-response.js';
import { OAuthModel, type ModelUser, type OAuthUsersClient } from './oauth.model.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, createOAuthServer } from './oauth.server.js';

/** What the token endpoint needs. */
export interface TokenRoutesDeps {
  readonly users: OAuthUsersClient & Pick<GrpcClient<typeof UsersService>, 'getUser'>;
  readonly logger: Logger;
  /** The web origins of apps: a browser app's origin gets the CORS headers (docs/api/auth.md, "Browser apps (CORS)"). */
  readonly origins?: WebOrigins;
}

/** The grant types this server offers (docs/api/auth.md, "Token endpoint"); any other is `unsupported_grant_type`. */
export const SUPPORTED_GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token', 'client_credentials'];

/** Parameters that must not repeat in a token request (RFC 6749 §3.2). */
const TOKEN_PARAMETERS = ['grant_type', 'code', 'redirect_uri', 'client_id', 'client_secret', 'code_verifier', 'refresh_token', 'scope'];

/**
 * `POST /oauth/token` (RFC 6749 §3.2) through @node-oauth/oauth2-server, with the grants
 * `authorization_code` (PKCE verified by the library), `refresh_token` (rotating: the presented
 * token is used up and a new pair issued; presenting a used one revokes its family) and
 * `client_credentials` (confidential clients; app-only token without scopes and without a refresh
 * token). Clients authenticate with HTTP Basic or `client_secret` in the body; public clients
 * send only `client_id`.
 *
 * The answer is RFC 6749 §5.1 JSON (`access_token`, `token_type` Bearer, `expires_in` 3600,
 * `refresh_token`, `scope`), plus `user: { id, name }` for tokens that act for a user
 * (docs/api/auth.md, "Token endpoint"). Errors are RFC 6749 §5.2 JSON: 400 (`invalid_request`, `invalid_grant`,
 * `unsupported_grant_type`, `unauthorized_client`, `invalid_scope`), 401 `invalid_client` with a
 * Basic challenge, 415/413 for a body that is not a small form; a users service that is down is
 * 503 `temporarily_unavailable`, anything unexpected 500 `server_error` (logged).
 */
export function registerTokenRoutes(app: EgApp, { users, logger, origins }: TokenRoutesDeps): void {
  app.post('/oauth/token', (req, res) => {
    if (req.inkwell !== undefined) req.inkwell.route = '/oauth/token';
    issue(req, res, users, origins).catch((error: unknown) => answerFailure(req, res, error, logger));
  });
  app.all('/oauth/token', (req, res) => methodNotAllowed(req, res, 'POST'));
}

async function issue(req: GatewayRequest, res: ServerResponse, users: TokenRoutesDeps['users'], origins: WebOrigins | undefined): Promise<void> {
  const form = await readOAuthForm(req);
  await allowClientOrigin(origins, req, res, claimedClientId(req, form));
  const repeated = repeatedParameters(form, TOKEN_PARAMETERS);
  if (repeated.length > 0) throw new OAuthFailure(400, 'invalid_request', `repeated parameter: ${repeated.join(', ')}`);
  // RFC 6749 §5.2: a grant the server does not offer (the password grant included) is
  // unsupported_grant_type for every client; the library would call a known-but-unoffered grant
  // unauthorized_client. A missing grant_type is left to the library (invalid_request).
  const grantType = form.get('grant_type');
  if (grantType !== null && grantType !== '' && !SUPPORTED_GRANT_TYPES.includes(grantType)) {
    throw new OAuthFailure(400, 'unsupported_grant_type', `grant_type must be one of ${SUPPORTED_GRANT_TYPES.join(', ')}`);
  }
  const requestId = req.inkwell?.requestId ?? 'token';
  const model = new OAuthModel(users, requestId);
  const { headers, body: fields, basic } = withDecodedBasicCredentials(req, form);
  const request = new OAuth2Server.Request({ method: 'POST', headers, query: {}, body: fields });
  const response = new OAuth2Server.Response();
  let token: OAuth2Server.Token;
  try {
    token = await createOAuthServer(model).token(request, response);
  } catch (error) {
    // RFC 6749 §5.2: a client that tried HTTP Basic and failed gets 401 with a challenge.
    if (basic && error instanceof OAuth2Server.InvalidClientError) throw new OAuthFailure(401, 'invalid_client', error.message);
    throw error;
  }

  const user = token.user as ModelUser;
  const body: Record<string, unknown> = {
    access_token: token.accessToken,
    token_type: 'Bearer',
    expires_in: token.accessTokenExpiresAt === undefined ? ACCESS_TOKEN_LIFETIME_SECONDS : Math.max(1, Math.round((token.accessTokenExpiresAt.getTime() - Date.now()) / 1000)),
    ...(token.refreshToken === undefined ? {} : { refresh_token: token.refreshToken }),
    scope: (token.scope ?? []).join(' '),
  };
  if (user.id !== undefined) {
    const found = await users.getUser({ id: user.id }, { caller: { requestId, userId: user.id, scopes: [] } });
    body.user = { id: user.id, name: found.user?.name ?? '' };
  }
  sendOAuthJson(res, 200, body);
}

/**
 * The request as the library gets it: HTTP Basic client credentials are decoded here
 * (RFC 6749 §2.3.1: both parts are form-urlencoded, which standard clients do and the library
 * does not undo) and handed over as `client_id`/`client_secret` body parameters instead.
 */
function withDecodedBasicCredentials(req: GatewayRequest, form: URLSearchParams): { headers: Record<string, string>; body: Record<string, string>; basic: boolean } {
  const headers = { ...req.headers } as Record<string, string>;
  const body = Object.fromEntries(form);
  const authorization = headers.authorization;
  if (authorization === undefined || !/^basic /i.test(authorization)) return { headers, body, basic: false };
  const presented = presentedClient(req, form);
  delete headers.authorization;
  body.client_id = presented.clientId;
  if (presented.clientSecret !== undefined) body.client_secret = presented.clientSecret;
  return { headers, body, basic: true };
}

/** Answers the failures of an OAuth endpoint: our OAuthFailure, the library's OAuthError, or an unexpected error. */
export function answerFailure(req: GatewayRequest, res: ServerResponse, error: unknown, logger: Logger): void {
  if (!req.complete) res.setHeader('Connection', 'close');
  if (error instanceof OAuthFailure) return sendOAuthFailure(res, error);
  if (error instanceof OAuth2Server.OAuthError && !(error instanceof OAuth2Server.ServerError)) {
    return sendOAuthFailure(res, new OAuthFailure(error.code === 401 ? 401 : 400, error.name, error.message));
  }
  const cause = error instanceof OAuth2Server.OAuthError ? ((error as { inner?: unknown }).inner ?? error) : error;
  if (isAppError(cause) && (cause.code === ErrorCode.UNAVAILABLE || cause.code === ErrorCode.DEADLINE_EXCEEDED)) {
    logger.warn({ err: cause, requestId: req.inkwell?.requestId }, 'OAuth request failed: users service unavailable');
    return sendOAuthFailure(res, new OAuthFailure(503, 'temporarily_unavailable', 'the authorization server is temporarily unavailable'));
  }
  logger.error({ err: cause, requestId: req.inkwell?.requestId }, 'OAuth request failed');
  sendOAuthFailure(res, new OAuthFailure(500, 'server_error', 'an unexpected error occurred; it has been logged'));
}

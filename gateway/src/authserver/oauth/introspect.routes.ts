import { timestampMs, type Timestamp } from '@bufbuild/protobuf/wkt';
import { TOKEN_PREFIXES } from '@inkwell/auth-tokens';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { CallerContext } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import type { EgApp } from '../../eg/eg.types.js';
import { methodNotAllowed } from './authorize.routes.js';
import { allowClientOrigin } from '../../cors/cors.middleware.js';
import type { WebOrigins } from '../../cors/web-origins.js';
import { authenticateClient, claimedClientId } from './client-authentication.js';
import { OAuthFailure, readOAuthForm, sendOAuthJson } from './oauth-response.js';
import type { OAuthUsersClient } from './oauth.model.js';
import { answerFailure } from './token.routes.js';

/** What the introspection endpoint needs. */
export interface IntrospectRoutesDeps {
  readonly users: OAuthUsersClient;
  readonly issuer: string;
  readonly logger: Logger;
  /** The web origins of apps: a browser app's origin gets the CORS headers (docs/api/auth.md, "Browser apps (CORS)"). */
  readonly origins?: WebOrigins;
}

const INACTIVE = { active: false } as const;

/**
 * `POST /oauth/introspect` (RFC 7662). Only confidential clients may introspect (they
 * authenticate with their secret; anyone else is 401 `invalid_client`), and only tokens issued
 * to themselves: any other token, like an unknown, expired or revoked one, is `{"active":false}`,
 * so the endpoint reveals nothing about other clients' or personal tokens. An active token is
 * described by `active`, `scope`, `client_id`, `token_type` (`Bearer` or `refresh_token`),
 * `exp`, `iat`, `sub` (the user id; absent for app-only tokens) and `iss`.
 * Note: introspecting a refresh token that was already used counts as presenting it, which
 * revokes its family (reuse detection in the users service).
 */
export function registerIntrospectRoutes(app: EgApp, { users, issuer, logger, origins }: IntrospectRoutesDeps): void {
  app.post('/oauth/introspect', (req, res) => {
    if (req.inkwell !== undefined) req.inkwell.route = '/oauth/introspect';
    (async () => {
      const form = await readOAuthForm(req);
      await allowClientOrigin(origins, req, res, claimedClientId(req, form));
      const caller: CallerContext = { requestId: req.inkwell?.requestId ?? 'introspect', scopes: [] };
      const client = await authenticateClient(req, form, users, caller, { allowPublic: false });
      const tokens = form.getAll('token');
      if (tokens.length !== 1 || tokens[0] === '') throw new OAuthFailure(400, 'invalid_request', 'send exactly one token');
      const description = await describe(tokens[0] as string, users, caller);
      if (description === undefined || description.clientId !== client.id) return sendOAuthJson(res, 200, INACTIVE);
      sendOAuthJson(res, 200, {
        active: true,
        scope: description.scopes.join(' '),
        client_id: description.clientId,
        token_type: description.tokenType,
        ...(description.expiresAt === undefined ? {} : { exp: Math.floor(timestampMs(description.expiresAt) / 1000) }),
        ...(description.createdAt === undefined ? {} : { iat: Math.floor(timestampMs(description.createdAt) / 1000) }),
        ...(description.userId === undefined ? {} : { sub: description.userId }),
        iss: issuer,
      });
    })().catch((error: unknown) => answerFailure(req, res, error, logger));
  });
  app.all('/oauth/introspect', (req, res) => methodNotAllowed(req, res, 'POST'));
}

interface TokenDescription {
  readonly clientId: string;
  readonly userId: string | undefined;
  readonly scopes: readonly string[];
  readonly tokenType: 'Bearer' | 'refresh_token';
  readonly expiresAt: Timestamp | undefined;
  readonly createdAt: Timestamp | undefined;
}

/** Looks the token up by its kind (prefix); undefined when it is not active. */
async function describe(token: string, users: OAuthUsersClient, caller: CallerContext): Promise<TokenDescription | undefined> {
  try {
    if (token.startsWith(TOKEN_PREFIXES.refreshToken)) {
      const found = (await users.getRefreshToken({ refreshToken: token }, { caller })).token;
      return found === undefined ? undefined : { clientId: found.clientId, userId: found.userId, scopes: found.scopes, tokenType: 'refresh_token', expiresAt: found.expiresAt, createdAt: found.dateCreated };
    }
    if (token.startsWith(TOKEN_PREFIXES.accessToken) || token.startsWith(TOKEN_PREFIXES.personalToken)) {
      const found = (await users.getAccessToken({ accessToken: token }, { caller })).token;
      return found === undefined ? undefined : { clientId: found.clientId, userId: found.userId, scopes: found.scopes, tokenType: 'Bearer', expiresAt: found.expiresAt, createdAt: found.dateCreated };
    }
    return undefined;
  } catch (error) {
    if (isAppError(error) && (error.code === ErrorCode.UNAUTHENTICATED || error.code === ErrorCode.NOT_FOUND || error.code === ErrorCode.INVALID_ARGUMENT)) return undefined;
    throw error;
  }
}

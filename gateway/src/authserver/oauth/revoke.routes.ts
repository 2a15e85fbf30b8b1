import { hashToken } from '@inkwell/auth-tokens';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import type { UsersService } from '@inkwell/proto/users';
import type { EgApp } from '../../eg/eg.types.js';
import { methodNotAllowed } from './authorize.routes.js';
import { allowClientOrigin } from '../../cors/cors.middleware.js';
import type { WebOrigins } from '../../cors/web-origins.js';
import { authenticateClient, claimedClientId } from './client-authentication.js';
import { OAuthFailure, readOAuthForm, sendOAuthJson } from './oauth-response.js';
import type { OAuthUsersClient } from './oauth.model.js';
import { answerFailure } from './token.routes.js';

/** What the revocation endpoint needs. */
export interface RevokeRoutesDeps {
  readonly users: OAuthUsersClient & Pick<GrpcClient<typeof UsersService>, 'revokeToken'>;
  /** Drops revoked access tokens from this gateway's token cache at once. */
  readonly evict: (hashes: readonly string[]) => void;
  readonly logger: Logger;
  /** The web origins of apps: a browser app's origin gets the CORS headers (docs/api/auth.md, "Browser apps (CORS)"). */
  readonly origins?: WebOrigins;
}

/**
 * `POST /oauth/revoke` (RFC 7009). The client authenticates like at the token endpoint (a public
 * client by its id). `token` may be an access or a refresh token (`token_type_hint` is not
 * needed and ignored); revoking a refresh token revokes its whole family, including the access
 * tokens issued with it. The answer is 200 with an empty body whether or not the token was
 * valid (RFC 7009 §2.2), except for a token issued to another client: 400 `unauthorized_client`.
 * The users service announces revoked access tokens on Redis for every gateway; this gateway
 * also drops the token from its own cache before answering, so the revoked token fails here at once.
 */
export function registerRevokeRoutes(app: EgApp, { users, evict, logger, origins }: RevokeRoutesDeps): void {
  app.post('/oauth/revoke', (req, res) => {
    if (req.inkwell !== undefined) req.inkwell.route = '/oauth/revoke';
    (async () => {
      const form = await readOAuthForm(req);
      await allowClientOrigin(origins, req, res, claimedClientId(req, form));
      const caller = { requestId: req.inkwell?.requestId ?? 'revoke', scopes: [] };
      const client = await authenticateClient(req, form, users, caller, { allowPublic: true });
      const tokens = form.getAll('token');
      if (tokens.length !== 1 || tokens[0] === '') throw new OAuthFailure(400, 'invalid_request', 'send exactly one token');
      const token = tokens[0] as string;
      try {
        await users.revokeToken({ token, clientId: client.id }, { caller });
      } catch (error) {
        if (isAppError(error) && error.code === ErrorCode.PERMISSION_DENIED) throw new OAuthFailure(400, 'unauthorized_client', 'the token was issued to another client');
        throw error;
      }
      evict([hashToken(token)]);
      sendOAuthJson(res, 200, undefined);
    })().catch((error: unknown) => answerFailure(req, res, error, logger));
  });
  app.all('/oauth/revoke', (req, res) => methodNotAllowed(req, res, 'POST'));
}

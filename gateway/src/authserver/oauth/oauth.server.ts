import OAuth2Server from '@node-oauth/oauth2-server';
import type { OAuthModel } from './oauth.model.js';

/** Access tokens live one hour (docs/api/auth.md, "Token endpoint"). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 60 * 60;
/** Refresh tokens live 30 days (docs/api/auth.md, "Token endpoint"). */
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** Authorization codes are exchanged right after the redirect; two minutes is plenty (RFC 6749 §4.1.2 recommends at most ten). */
export const AUTHORIZATION_CODE_LIFETIME_SECONDS = 2 * 60;

/**
 * The @node-oauth/oauth2-server instance for one request's model (OAuthModel is per request;
 * the server object is only a bag of options, so creating one is cheap).
 * - Public clients authenticate nobody at the token endpoint for `authorization_code` (PKCE
 *   proves possession instead) and `refresh_token`; OAuthModel.getClient makes sure a
 *   confidential client still has to send its secret. `client_credentials` always needs it.
 * - Refresh tokens always rotate; `plain` PKCE is off (the library's default).
 * - An authorization request may leave `state` out (PKCE protects the exchange; clients that
 *   rely on state send it).
 */
export function createOAuthServer(model: OAuthModel): OAuth2Server {
  return new OAuth2Server({
    model: model as unknown as OAuth2Server.ServerOptions['model'],
    accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
    refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_SECONDS,
    authorizationCodeLifetime: AUTHORIZATION_CODE_LIFETIME_SECONDS,
    allowEmptyState: true,
    allowExtendedTokenAttributes: false,
    alwaysIssueNewRefreshToken: true,
    requireClientAuthentication: { authorization_code: false, refresh_token: false, client_credentials: true },
  });
}

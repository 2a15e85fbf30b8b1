import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import type { EgApp } from '../../eg/eg.types.js';

/**
 * The authorization server metadata of RFC 8414, served at
 * `GET /.well-known/oauth-authorization-server`. `issuer` is PUBLIC_BASE_URL, and every endpoint
 * is absolute under it. It also states what the server does beyond the minimum: PKCE with S256
 * only, `iss` in authorization responses (RFC 9207), and which client authentication each
 * endpoint takes. Cacheable for an hour; readable from any origin (it is public).
 */
export function authorizationServerMetadata(issuer: string): Readonly<Record<string, unknown>> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    scopes_supported: [...SCOPE_NAMES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
  };
}

/** Registers the metadata document. */
export function registerMetadataRoutes(app: EgApp, issuer: string): void {
  const body = JSON.stringify(authorizationServerMetadata(issuer));
  app.get('/.well-known/oauth-authorization-server', (req, res) => {
    if (req.inkwell !== undefined) req.inkwell.route = '/.well-known/oauth-authorization-server';
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  });
}

/**
 * The OAuth client of the API reference page (`/docs`, docs/api/reference.md, "Try it: Authorize"):
 * a public client (PKCE, no secret) owned by nobody, whose one redirect URI is Swagger UI's
 * oauth2-redirect page served by the gateway. The users service ensures it exists at every start
 * (its redirect URI derived from PUBLIC_BASE_URL), and the gateway's /docs page names it.
 */
export const DOCS_CLIENT = {
  /** A fixed client id, unlike the random 22-character ids of registered apps. */
  id: 'inkwell-api-docs',
  name: 'Inkwell API reference (/docs)',
  /** The path of the redirect page under the gateway's public base URL. */
  redirectPath: '/docs/oauth2-redirect.html',
} as const;

/** The docs client's redirect URI for a gateway whose PUBLIC_BASE_URL is `publicBaseUrl` (a trailing slash is ignored). */
export function docsClientRedirectUri(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${DOCS_CLIENT.redirectPath}`;
}

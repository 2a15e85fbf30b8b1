/** The path prefix of API version 1 (docs/api/foundation.md, "Transport and routing"). */
export const API_V1_PREFIX = '/api/v1';

/**
 * Builds the absolute URLs the API returns. Every link starts with PUBLIC_BASE_URL, never with
 * the Host header of the request, so a client cannot make the API emit links to another origin.
 */
export interface ApiLinks {
  /** `PUBLIC_BASE_URL` + `/api/v1`, no trailing slash. */
  readonly apiBase: string;
  /** The absolute URL of an API path relative to `/api/v1`, e.g. `to('/users/1')`. */
  to(path: string): string;
  /** The absolute URL of a request target as received (`/api/v1/...?query`). */
  request(originalUrl: string): string;
  /** The absolute URL of a path of the site outside the API, e.g. `site('/feeds/stories.atom')`. */
  site(path: string): string;
}

/** Links for `publicBaseUrl` (an origin with an optional path prefix; a trailing slash is ignored). */
export function createApiLinks(publicBaseUrl: string): ApiLinks {
  const origin = publicBaseUrl.replace(/\/+$/, '');
  const apiBase = origin + API_V1_PREFIX;
  return {
    apiBase,
    to: (path) => apiBase + path,
    request: (originalUrl) => origin + originalUrl,
    site: (path) => origin + path,
  };
}

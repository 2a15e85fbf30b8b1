import type { ServerResponse } from 'node:http';

/**
 * The CORS answers of the API and of the token, revocation and introspection endpoints
 * (docs/api/auth.md, "Browser apps (CORS)"): which origin is allowed is decided elsewhere
 * (web-origins.ts); these are the headers an allowed origin gets. Credentials never travel by
 * cookie, so `Access-Control-Allow-Credentials` is never sent (and `*` never either: the answer
 * names the one origin asked about).
 */

/** How long a browser may keep a preflight answer: two hours, the most Chromium keeps one. */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** Methods a browser app may use on the API (a token endpoint allows only POST). */
export const API_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

/** Request headers a browser app may send: the token, the body's type, conditional requests, POST idempotency, its own request id. */
export const ALLOWED_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'If-None-Match', 'Idempotency-Key', 'X-Request-Id'] as const;

/**
 * Response headers a browser app may read beyond the CORS-safelisted ones: rate limits and
 * back-off, revalidation, where a created resource is, the request id, idempotent replays,
 * deprecation notices, and the bearer challenge.
 */
export const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'ETag',
  'Location',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'Link',
  'WWW-Authenticate',
] as const;

/** The `Origin` of a cross-origin request, or undefined when there is none (or a repeated header). */
export function requestOrigin(headers: { readonly origin?: string | string[] | undefined }): string | undefined {
  const origin = headers.origin;
  return typeof origin === 'string' && origin !== '' ? origin : undefined;
}

/** Whether the request is a CORS preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(method: string | undefined, headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  return method === 'OPTIONS' && requestOrigin(headers) !== undefined && typeof headers['access-control-request-method'] === 'string';
}

/** Adds `Origin` to the response's `Vary` (keeping what is there): the answer depends on who asks from where. */
export function varyByOrigin(res: ServerResponse): void {
  const current = res.getHeader('Vary');
  const names = (Array.isArray(current) ? current.join(',') : current === undefined ? '' : String(current))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (!names.some((name) => name.toLowerCase() === 'origin')) res.setHeader('Vary', [...names, 'Origin'].join(', '));
}

/** The headers of an allowed answer (not a preflight): the origin itself and what it may read. */
export function allowOrigin(res: ServerResponse, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
}

/** Answers an allowed preflight: 204 with the origin, the methods, the request headers and the cache lifetime. */
export function answerPreflight(res: ServerResponse, origin: string, methods: readonly string[]): void {
  res.statusCode = 204;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Methods', methods.join(', '));
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS.join(', '));
  res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
  res.setHeader('Cache-Control', 'no-store');
  res.end();
}

/** Answers a refused preflight: 204 without any CORS header, so the browser does not send the request. */
export function refusePreflight(res: ServerResponse): void {
  res.statusCode = 204;
  res.setHeader('Cache-Control', 'no-store');
  res.end();
}

import type { ServerResponse } from 'node:http';
import type { GatewayRequest } from './request-state.js';

/**
 * `Cache-Control` of every API answer (docs/api/foundation.md, "Caching at the edge"): only the
 * caller's own cache may keep it (`private`: no shared cache, proxy or CDN), and it asks again
 * before reusing it (`no-cache`: with `If-None-Match`, a 304 when unchanged).
 */
export const API_CACHE_CONTROL = 'private, no-cache';

/** `Vary` of every API answer: every answer may depend on who is calling, and the token says who. */
export const API_VARY = 'Authorization';

/**
 * Marks every answer under an API prefix as the caller's own (`Cache-Control`
 * {@link API_CACHE_CONTROL}, `Vary` {@link API_VARY}) before the API pipeline runs: successes,
 * 304s, errors of every kind (the token check, rate limits and body checks before the route
 * included) and replayed idempotent answers alike. The answers the gateway keeps for everyone
 * (docs/api/foundation.md, "Caching at the edge") are marked the same: each is still built per
 * request, with parts that are the caller's (a cursor bound to them), and only ever for a bearer
 * of a token. Mounted after the API document (`GET /api/v1/openapi.json`), which is the same for
 * everyone, needs no token and stays public.
 */
export function apiCacheHeaders(_req: GatewayRequest, res: ServerResponse, next: () => void): void {
  res.setHeader('Cache-Control', API_CACHE_CONTROL);
  res.setHeader('Vary', API_VARY);
  next();
}

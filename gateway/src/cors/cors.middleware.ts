import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EgPolicy, Middleware } from '../eg/eg.types.js';
import { requestState, type GatewayRequest } from '../http/request-state.js';
import { allowOrigin, answerPreflight, API_METHODS, isPreflight, refusePreflight, requestOrigin, varyByOrigin } from './cors.rules.js';
import type { WebOrigins } from './web-origins.js';

/**
 * Counts a preflight whose origin is not remembered before the users service is asked about it
 * (on the client address's window of the API's rate limits); false when that window is spent: the
 * preflight is then refused without a lookup, so preflights with made-up origins cost at most
 * the anonymous allowance in lookups.
 */
export type PreflightLookupGate = (req: GatewayRequest) => Promise<boolean>;

/** The endpoints of the authorization server a browser app calls with fetch (the token endpoints). */
export const OAUTH_CORS_PATHS: readonly string[] = ['/oauth/token', '/oauth/revoke', '/oauth/introspect'];

/**
 * The part of the API's CORS that needs no token (docs/api/auth.md, "Browser apps (CORS)"),
 * mounted at /api/v1 before the API pipeline: a request with `Origin` gets `Origin` added to its
 * `Vary`; a preflight (which never carries a token) is answered here, allowed (204 with the CORS
 * headers) when any app registered the origin, else 204 without them. Everything else goes on.
 */
export function apiPreflight(origins: WebOrigins, gate: PreflightLookupGate): Middleware {
  return (req, res, next) => {
    const origin = requestOrigin(req.headers);
    if (origin === undefined) return next();
    varyByOrigin(res);
    if (!isPreflight(req.method, req.headers)) return next();
    preflightAllowed(origins, gate, req, origin).then(
      (allowed) => (allowed ? answerPreflight(res, origin, API_METHODS) : refusePreflight(res)),
      (error: unknown) => next(error),
    );
  };
}

/** Whether any app registered `origin`: from memory, else from the users service when the gate lets the lookup through. */
async function preflightAllowed(origins: WebOrigins, gate: PreflightLookupGate, req: GatewayRequest, origin: string): Promise<boolean> {
  const known = origins.knownAnyAppAllows(origin);
  if (known !== undefined) return known;
  return (await gate(req)) && (await origins.anyAppAllows(origin));
}

/**
 * The `api-cors` policy, right after bearer-auth: an answer to a request with `Origin` carries the
 * CORS headers when the token's app registered that origin. A request without a valid token gets
 * them when any app registered the origin, so that a browser app can read its 401 (and 429, 503)
 * and sign in again; a personal token, which belongs to no app, never does. Set before any answer,
 * so errors, 304s and rate-limit refusals carry them too.
 */
export function createApiCorsPolicy(origins: WebOrigins): EgPolicy {
  return {
    name: 'api-cors',
    schema: { $id: 'https://inkwell.dev/schemas/policies/api-cors.json', type: 'object', properties: {} },
    policy: () => (req, res, next) => {
      const origin = requestOrigin(req.headers);
      if (origin === undefined) return next();
      const state = requestState(req);
      const appId = state.authFailure === undefined ? state.caller.appId : undefined;
      const decision = state.authFailure !== undefined ? origins.anyAppAllows(origin) : appId === undefined ? Promise.resolve(false) : origins.allowsApp(appId, origin);
      decision.then(
        (allowed) => {
          if (allowed) allowOrigin(res, origin);
          next();
        },
        (error: unknown) => next(error),
      );
    },
  };
}

/**
 * Preflights of the token, revocation and introspection endpoints (they name no client yet):
 * allowed for an origin any app registered, with POST alone. Other requests with `Origin` get
 * `Origin` added to their `Vary` and go on; the endpoint itself then calls
 * {@link allowClientOrigin} once it knows the client.
 */
export function oauthPreflight(origins: WebOrigins, gate: PreflightLookupGate): Middleware {
  return (req, res, next) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (!OAUTH_CORS_PATHS.includes(path)) return next();
    const origin = requestOrigin(req.headers);
    if (origin === undefined) return next();
    varyByOrigin(res);
    if (!isPreflight(req.method, req.headers)) return next();
    preflightAllowed(origins, gate, req, origin).then(
      (allowed) => (allowed ? answerPreflight(res, origin, ['POST']) : refusePreflight(res)),
      (error: unknown) => next(error),
    );
  };
}

/**
 * Sets the CORS headers of a token, revocation or introspection answer when the client the request
 * names (`clientId`: from HTTP Basic or the form's `client_id`) registered the request's origin;
 * nothing without an origin, a client id, or a match. Called before the answer is written.
 */
export async function allowClientOrigin(origins: WebOrigins | undefined, req: IncomingMessage, res: ServerResponse, clientId: string | undefined): Promise<void> {
  const origin = requestOrigin(req.headers);
  if (origins === undefined || origin === undefined || clientId === undefined || clientId === '') return;
  if (await origins.allowsApp(clientId, origin)) allowOrigin(res, origin);
}

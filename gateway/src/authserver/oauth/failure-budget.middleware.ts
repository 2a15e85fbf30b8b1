import { clientAddress } from '../../auth/client-address.js';
import type { Middleware } from '../../eg/eg.types.js';
import type { CredentialThrottle } from '../../ratelimit/credential.throttle.js';
import { sendOAuthJson } from './oauth-response.js';

/** The OAuth endpoints that take client credentials, codes or tokens. */
const CREDENTIAL_ENDPOINTS: ReadonlySet<string> = new Set(['/oauth/token', '/oauth/revoke', '/oauth/introspect']);

/**
 * The per-address budget of the OAuth credentials endpoints (`POST /oauth/token`, `/revoke`,
 * `/introspect`; docs/api/auth.md, "Credentials endpoints"). Failures are what counts: every 4xx
 * answer (a wrong client secret, an unknown code or refresh token, a malformed request) is one
 * credential attempt on the client address's window, shared with sign-in and sign-up. Once the
 * window is used up, every request from that address is answered `429` with `Retry-After` and
 * `{"error":"rate_limited"}` BEFORE any work, until the window ends. Successful requests cost
 * nothing, so a busy confidential client refreshing tokens for many users from one server is
 * never slowed. Must be registered before the endpoints' routes.
 */
export function createOAuthFailureBudget(throttle: CredentialThrottle, trustProxy: boolean): Middleware {
  return (req, res, next) => {
    const url = req.originalUrl ?? req.url ?? '/';
    const queryStart = url.indexOf('?');
    if (req.method !== 'POST' || !CREDENTIAL_ENDPOINTS.has(queryStart === -1 ? url : url.slice(0, queryStart))) {
      next();
      return;
    }
    const address = clientAddress(req, trustProxy);
    throttle.check(address).then(
      (window) => {
        if (window?.exceeded === true) {
          if (!req.complete) res.setHeader('Connection', 'close');
          const description = `too many failed requests from this address; try again in ${window.resetSeconds} s`;
          sendOAuthJson(res, 429, { error: 'rate_limited', error_description: description }, { 'Retry-After': String(window.resetSeconds) });
          return;
        }
        res.once('finish', () => {
          if (res.statusCode >= 400 && res.statusCode < 500 && res.statusCode !== 429) void throttle.attempt(address);
        });
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

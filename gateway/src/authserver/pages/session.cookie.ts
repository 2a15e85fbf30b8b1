import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'inkwell_session';

/** How the gateway decides whether cookies get the `Secure` attribute. */
export interface CookiePolicy {
  /** true/false: always/never; `auto`: when PUBLIC_BASE_URL is https or the request came over TLS. */
  readonly secure: boolean | 'auto';
  /** PUBLIC_BASE_URL is https. */
  readonly publicHttps: boolean;
  /** Believe `X-Forwarded-Proto` (set only behind a proxy that overwrites it). */
  readonly trustProxy: boolean;
}

/** The value of cookie `name` in the request's Cookie header (the first one), undefined when absent. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Whether the request reached us over TLS (directly, or per a trusted proxy's X-Forwarded-Proto). */
export function isSecureRequest(req: IncomingMessage, trustProxy: boolean): boolean {
  if ((req.socket as TLSSocket).encrypted === true) return true;
  if (!trustProxy) return false;
  const proto = req.headers['x-forwarded-proto'];
  const value = Array.isArray(proto) ? proto[0] : proto;
  return value?.split(',', 1)[0]?.trim().toLowerCase() === 'https';
}

/**
 * The Set-Cookie value of the session cookie: `HttpOnly` (no script reads it), `SameSite=Lax`
 * (not sent on cross-site form posts; sent on the top-level navigation back from a client's
 * authorization request), `Path=/`, `Max-Age`, and `Secure` per the policy. `maxAgeSeconds` 0
 * deletes the cookie.
 */
export function sessionCookie(value: string, maxAgeSeconds: number, req: IncomingMessage, policy: CookiePolicy): string {
  return pageCookie(SESSION_COOKIE, value, maxAgeSeconds, req, policy);
}

/** A Set-Cookie value of the pages with the session cookie's attributes (see sessionCookie), for cookie `name`. */
export function pageCookie(name: string, value: string, maxAgeSeconds: number, req: IncomingMessage, policy: CookiePolicy): string {
  const secure = policy.secure === 'auto' ? policy.publicHttps || isSecureRequest(req, policy.trustProxy) : policy.secure;
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

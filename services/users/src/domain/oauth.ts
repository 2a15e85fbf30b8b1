import { randomBytes } from 'node:crypto';

/** An OAuth client ("application") without its secret. */
export interface OAuthClient {
  id: string;
  name: string;
  redirectUris: string[];
  /** Web origins a browser app of this client may call from (CORS, docs/api/auth.md, "Browser apps (CORS)"). */
  allowedOrigins: string[];
  confidential: boolean;
  /** Undefined for clients created by the operator. */
  ownerUserId?: string;
  dateCreated: Date;
}

/** A stored authorization code (the code itself is only kept as a hash). */
export interface AuthorizationCode {
  id: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string;
  codeChallengeMethod: string;
  expiresAt: Date;
}

/** What an access token (OAuth or personal) stands for. */
export interface AccessTokenInfo {
  tokenId: string;
  tokenHash: string;
  /** Undefined for app-only tokens. */
  userId?: string;
  /** Undefined for personal tokens. */
  clientId?: string;
  scopes: string[];
  /** Undefined for a personal token without expiry. */
  expiresAt?: Date;
  personal: boolean;
  dateCreated: Date;
}

/** What a refresh token stands for. */
export interface RefreshTokenInfo {
  tokenId: string;
  userId?: string;
  clientId: string;
  scopes: string[];
  expiresAt: Date;
  familyId: string;
  dateCreated: Date;
}

/** A personal access token as its owner sees it in a list. */
export interface PersonalToken {
  id: string;
  userId: string;
  name: string;
  scopes: string[];
  dateCreated: Date;
  expiresAt?: Date;
}

/** Limits on client registrations (name and number of redirect URIs and origins: CreateClientRequest's rules). */
export const CLIENT_LIMITS = {
  maxRedirectUriLength: 2000,
  /** Longest allowed origin: a scheme, a host name of at most 253 characters and a port fit. */
  maxOriginLength: 300,
  /**
   * Apps one user may own (docs/api/accounts.md, "Applications"): every app has its own
   * client-credentials rate-limit window and counts as a reader of its own, so without a cap one
   * person could multiply their allowance or inflate view counts. Operator apps (no owner) are not capped.
   */
  maxPerOwner: 25,
} as const;

/** Limits of personal access tokens (docs/api/accounts.md, "Personal access tokens"). */
export const PERSONAL_TOKEN_LIMITS = {
  /** Active (neither revoked nor expired) personal tokens one user may have: a bound on what one user stores. */
  maxActivePerUser: 50,
} as const;

/**
 * Limits of OAuth tokens (docs/api/accounts.md, "Codes and tokens"). Issuing never fails because
 * of a cap: a new authorization beyond it revokes the one used least recently, as a person who
 * signs in to an app on one more device expects, and as a server that asks for a fresh
 * client-credentials token on every start needs.
 */
export const OAUTH_TOKEN_LIMITS = {
  /**
   * Active authorizations (token families: a code exchange and its refreshes, each holding one
   * active access token and one active refresh token) per app and user.
   */
  maxActivePerAppUser: 10,
  /** Active app-only (client credentials) access tokens per app. */
  maxActiveAppOnly: 10,
  /**
   * Tokens and codes are deleted this long after they expired or were revoked. Used refresh
   * tokens are kept until they expire, so that presenting one again is still recognised as reuse;
   * a code is recognised as reused for this long after it expired.
   */
  retainInactiveMs: 24 * 60 * 60 * 1000,
  /** Rows one pruning statement deletes at most (per table). */
  pruneBatchSize: 1000,
  /** Batches per table one pruning sweep runs at most; the next sweep goes on. */
  pruneMaxBatches: 100,
} as const;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** A fresh client id: 16 random bytes in base64url (22 characters); not sequential, not guessable. */
export function newClientId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Why `uri` cannot be a redirect URI, or undefined when it can. Redirect URIs are compared by
 * exact string equality, so they must be absolute and without a fragment (RFC 6749 §3.1.2);
 * `https` anywhere, `http` only on loopback hosts (local development and native apps, RFC 8252
 * §7.3), or a private-use scheme with a dot in it (`com.example.app:/cb`, RFC 8252 §7.1).
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length === 0 || uri.length > CLIENT_LIMITS.maxRedirectUriLength) return `A redirect URI has 1 to ${CLIENT_LIMITS.maxRedirectUriLength} characters.`;
  if (/\s/.test(uri)) return 'A redirect URI contains no spaces.';
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'A redirect URI must be an absolute URI.';
  }
  if (uri.includes('#')) return 'A redirect URI must not contain a fragment.';
  if (parsed.username !== '' || parsed.password !== '') return 'A redirect URI must not contain credentials.';
  const scheme = parsed.protocol.slice(0, -1);
  if (scheme === 'https') return undefined;
  if (scheme === 'http') return LOOPBACK_HOSTS.has(parsed.hostname) ? undefined : 'http redirect URIs are allowed only for loopback hosts; use https.';
  if (scheme.includes('.') && !/^(javascript|data|file|vbscript)$/i.test(scheme)) return undefined;
  return 'A redirect URI uses https, http on a loopback host, or a private-use scheme like com.example.app.';
}

/**
 * Why `origin` cannot be an allowed origin of a browser app, or undefined when it can
 * (docs/api/auth.md, "Browser apps (CORS)"). An origin is compared by string equality with the
 * `Origin` header, so it must be written as browsers serialise it: `scheme://host[:port]` in lower
 * case, without a path, a trailing slash or the scheme's default port. `https` anywhere, `http`
 * only on loopback hosts, as for redirect URIs.
 */
export function allowedOriginProblem(origin: string): string | undefined {
  if (origin.length === 0 || origin.length > CLIENT_LIMITS.maxOriginLength) return `An allowed origin has 1 to ${CLIENT_LIMITS.maxOriginLength} characters.`;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return 'An allowed origin is written scheme://host[:port], e.g. https://app.example.com.';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'An allowed origin uses https (or http on a loopback host).';
  if (parsed.origin !== origin) return `An allowed origin is written as browsers send it, without a path or a trailing slash: ${parsed.origin}.`;
  if (parsed.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname)) return 'http origins are allowed only for loopback hosts; use https.';
  return undefined;
}

/** PKCE methods of RFC 7636. */
export const CODE_CHALLENGE_METHODS = ['S256', 'plain'] as const;

/** True when `expiresAt` is unset (never) or still in the future at `now`. */
export function notExpired(expiresAt: Date | undefined, now: Date): boolean {
  return expiresAt === undefined || expiresAt.getTime() > now.getTime();
}

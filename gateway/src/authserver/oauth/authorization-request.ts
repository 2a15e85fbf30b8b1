import { parseScopes, type Scope } from '@inkwell/auth-tokens';

/** The parameters of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3), as received. */
export interface AuthorizationParams {
  readonly clientId: string | null;
  readonly redirectUri: string | null;
  readonly responseType: string | null;
  readonly scope: string | null;
  readonly state: string | null;
  readonly codeChallenge: string | null;
  readonly codeChallengeMethod: string | null;
}

/** The names of the authorization request parameters, as sent on the wire. */
export const AUTHORIZATION_PARAMETERS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

/** What the authorization endpoint knows about the client named by `client_id`. */
export interface AuthorizationClient {
  readonly id: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly confidential: boolean;
}

/** An authorization request that passed every check: ready for the consent page. */
export interface ValidAuthorizationRequest {
  readonly client: AuthorizationClient;
  readonly redirectUri: string;
  readonly scopes: readonly Scope[];
  readonly state: string | undefined;
  readonly codeChallenge: string | undefined;
  readonly codeChallengeMethod: 'S256' | undefined;
}

/**
 * The outcome of checking an authorization request:
 * - `page`: the request cannot be trusted to name where to send the answer (no or unknown
 *   client, a redirect_uri that is not registered, repeated parameters): the error is shown to
 *   the person on a page, never redirected (RFC 6749 §4.1.2.1; no open redirects);
 * - `redirect`: the redirect_uri is the client's own, so the error goes back to it
 *   (`error`, `error_description`, `state`);
 * - `valid`: show the consent page.
 */
export type AuthorizationCheck =
  | { readonly kind: 'page'; readonly message: string }
  | { readonly kind: 'redirect'; readonly redirectUri: string; readonly error: string; readonly description: string; readonly state: string | undefined }
  | { readonly kind: 'valid'; readonly request: ValidAuthorizationRequest };

/** Reads the parameters from a query string or form; `repeated` names those sent more than once. */
export function readAuthorizationParams(fields: URLSearchParams): { readonly params: AuthorizationParams; readonly repeated: readonly string[] } {
  const repeated = AUTHORIZATION_PARAMETERS.filter((name) => fields.getAll(name).length > 1);
  return {
    params: {
      clientId: fields.get('client_id'),
      redirectUri: fields.get('redirect_uri'),
      responseType: fields.get('response_type'),
      scope: fields.get('scope'),
      state: fields.get('state'),
      codeChallenge: fields.get('code_challenge'),
      codeChallengeMethod: fields.get('code_challenge_method'),
    },
    repeated,
  };
}

const VSCHAR = /^[\x20-\x7e]*$/;
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_STATE_LENGTH = 2048;

/**
 * Checks an authorization request against its client (undefined: `client_id` names none), in
 * the order that keeps errors from being redirected anywhere untrusted:
 * 1. repeated parameters, a missing or unknown client_id, a redirect_uri that is not exactly
 *    one of the client's registered URIs (string equality; when omitted, the client must have
 *    exactly one) → `page`;
 * 2. then, redirected to that URI: response_type other than `code` (`unsupported_response_type`,
 *    missing: `invalid_request`); unknown scope names (`invalid_scope`); a malformed state;
 *    PKCE (RFC 7636): only `S256`, a well-formed challenge, and a challenge is REQUIRED for
 *    public clients (`invalid_request`).
 * An empty scope is allowed: the token then reads only public data.
 */
export function checkAuthorizationRequest(params: AuthorizationParams, repeated: readonly string[], client: AuthorizationClient | undefined): AuthorizationCheck {
  if (repeated.length > 0) return { kind: 'page', message: `The authorization request repeats ${repeated.join(', ')}; each parameter may be sent once.` };
  if (params.clientId === null || params.clientId === '') return { kind: 'page', message: 'The authorization request does not say which application is asking (client_id is missing).' };
  if (client === undefined) return { kind: 'page', message: 'The application that sent you here is not registered with Inkwell (unknown client_id).' };

  let redirectUri: string;
  if (params.redirectUri === null) {
    if (client.redirectUris.length !== 1) return { kind: 'page', message: 'The authorization request must name its redirect_uri: this application has registered several.' };
    redirectUri = client.redirectUris[0] as string;
  } else if (client.redirectUris.includes(params.redirectUri)) {
    redirectUri = params.redirectUri;
  } else {
    return { kind: 'page', message: 'The redirect_uri of this authorization request is not one the application registered, so Inkwell will not send you there.' };
  }

  const rawState = params.state ?? '';
  const stateOk = VSCHAR.test(rawState) && rawState.length <= MAX_STATE_LENGTH;
  const state = stateOk && rawState !== '' ? rawState : undefined;
  const fail = (error: string, description: string): AuthorizationCheck => ({ kind: 'redirect', redirectUri, error, description, state });

  if (!stateOk) return fail('invalid_request', `state must be at most ${MAX_STATE_LENGTH} printable ASCII characters`);
  if (params.responseType === null || params.responseType === '') return fail('invalid_request', 'response_type is missing');
  if (params.responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');

  const { scopes, unknown } = parseScopes(params.scope ?? '');
  if (unknown.length > 0) return fail('invalid_scope', `unknown scope: ${unknown.join(' ')}`);

  const method = params.codeChallengeMethod;
  const challenge = params.codeChallenge;
  if (method !== null && method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  if (challenge === null || challenge === '') {
    if (method !== null) return fail('invalid_request', 'code_challenge_method without code_challenge');
    if (!client.confidential) return fail('invalid_request', 'PKCE is required for public clients: send code_challenge with code_challenge_method=S256');
  } else {
    if (!CODE_CHALLENGE.test(challenge)) return fail('invalid_request', 'code_challenge must be 43 to 128 characters of [A-Za-z0-9._~-]');
    if (method === null) return fail('invalid_request', 'code_challenge_method=S256 is required with code_challenge (plain is not supported)');
  }

  return {
    kind: 'valid',
    request: {
      client,
      redirectUri,
      scopes,
      state,
      codeChallenge: challenge === null || challenge === '' ? undefined : challenge,
      codeChallengeMethod: challenge === null || challenge === '' ? undefined : 'S256',
    },
  };
}

/**
 * The redirect back to the client (RFC 6749 §4.1.2): `redirectUri` with `params` added to its
 * query (keeping the query it was registered with), plus `iss` (RFC 9207), so that a client
 * talking to several servers can tell whose answer this is.
 */
export function clientRedirect(redirectUri: string, issuer: string, params: Readonly<Record<string, string | undefined>>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  url.searchParams.set('iss', issuer);
  return url.href;
}

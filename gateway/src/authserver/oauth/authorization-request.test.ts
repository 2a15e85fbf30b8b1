import { describe, expect, it } from 'vitest';
import { checkAuthorizationRequest, clientRedirect, readAuthorizationParams, type AuthorizationClient } from './authorization-request.js';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const publicClient: AuthorizationClient = { id: 'c1', name: 'Reader', redirectUris: ['https://app.example/cb', 'http://127.0.0.1:9/cb'], confidential: false };
const confidentialClient: AuthorizationClient = { ...publicClient, id: 'c2', redirectUris: ['https://app.example/cb'], confidential: true };

function check(query: Record<string, string | string[]>, client: AuthorizationClient | null = publicClient) {
  const fields = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) for (const one of [value].flat()) fields.append(name, one);
  const { params, repeated } = readAuthorizationParams(fields);
  return checkAuthorizationRequest(params, repeated, client ?? undefined);
}

const good = { client_id: 'c1', redirect_uri: 'https://app.example/cb', response_type: 'code', scope: 'read_user write_user', state: 'xyz', code_challenge: CHALLENGE, code_challenge_method: 'S256' };

describe('checkAuthorizationRequest', () => {
  it('accepts a complete PKCE request and returns its scopes', () => {
    expect(check(good)).toEqual({
      kind: 'valid',
      request: { client: publicClient, redirectUri: 'https://app.example/cb', scopes: ['read_user', 'write_user'], state: 'xyz', codeChallenge: CHALLENGE, codeChallengeMethod: 'S256' },
    });
  });

  it('shows a page, never a redirect, when the client or redirect_uri cannot be trusted', () => {
    expect(check({ ...good, client_id: '' }).kind).toBe('page');
    expect(check(good, null).kind).toBe('page');
    expect(check({ ...good, redirect_uri: 'https://evil.example/cb' }).kind).toBe('page');
    expect(check({ ...good, redirect_uri: 'https://app.example/cb/' }).kind).toBe('page');
    expect(check({ ...good, redirect_uri: 'https://app.example/cb?x=1' }).kind).toBe('page');
    expect(check({ ...good, state: ['a', 'b'] }).kind).toBe('page');
    const { redirect_uri: _omitted, ...withoutRedirect } = good;
    expect(check(withoutRedirect).kind).toBe('page');
  });

  it('uses the only registered redirect_uri when none is given', () => {
    const { redirect_uri: _omitted, ...withoutRedirect } = good;
    const result = check({ ...withoutRedirect, client_id: 'c2' }, confidentialClient);
    expect(result).toMatchObject({ kind: 'valid', request: { redirectUri: 'https://app.example/cb' } });
  });

  it.each([
    ['unknown scopes', { scope: 'read_user delete_everything' }, 'invalid_scope'],
    ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['no response type', { response_type: '' }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a challenge without method', { code_challenge_method: '' }, 'invalid_request'],
    ['a short challenge', { code_challenge: 'abc' }, 'invalid_request'],
    ['no PKCE from a public client', { code_challenge: '' }, 'invalid_request'],
    ['a non-ASCII state', { state: 'é' }, 'invalid_request'],
  ])('redirects %s back to the client as an error', (_label, change, error) => {
    const query: Record<string, string> = { ...good, ...change };
    for (const [name, value] of Object.entries(query)) if (value === '') delete query[name];
    const result = check(query);
    expect(result).toMatchObject({ kind: 'redirect', redirectUri: 'https://app.example/cb', error });
  });

  it('lets confidential clients go without PKCE and public ones not', () => {
    const { code_challenge: _c, code_challenge_method: _m, ...noPkce } = good;
    expect(check({ ...noPkce, client_id: 'c2' }, confidentialClient).kind).toBe('valid');
    expect(check(noPkce)).toMatchObject({ kind: 'redirect', error: 'invalid_request' });
  });

  it('accepts an empty scope', () => {
    expect(check({ ...good, scope: '' })).toMatchObject({ kind: 'valid', request: { scopes: [] } });
  });
});

describe('clientRedirect', () => {
  it('adds the parameters and the issuer to the registered query', () => {
    expect(clientRedirect('https://app.example/cb?tenant=7', 'https://inkwell.example', { code: 'abc', state: 's p', error: undefined })).toBe(
      'https://app.example/cb?tenant=7&code=abc&state=s+p&iss=https%3A%2F%2Finkwell.example',
    );
  });
});

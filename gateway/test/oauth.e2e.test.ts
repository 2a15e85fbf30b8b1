import { SCOPES } from '@inkwell/auth-tokens';
import { createTestUser, eventually, type TestUser } from '@inkwell/testing';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, JsonApiClient } from './support/json-api-client.js';
import { authorizationRequest, authorizeThroughPages, discover, INSECURE, REDIRECT_URI, registerApp, signIn, type RegisteredClient } from './support/oauth-flow.js';
import { hiddenFields, WebClient } from './support/web-client.js';

let stack: GatewayStack;
let person: TestUser;
/** Signed in as `person` (the developer who registered the apps, and the one who consents). */
let web: WebClient;
let as: oauth.AuthorizationServer;
let publicApp: RegisteredClient;
let confidentialApp: RegisteredClient;

beforeAll(async () => {
  // Many deliberate failures from one address: the per-address credentials budget is tested in credentials.http.test.ts.
  stack = await startGatewayStack('inkwell_gateway_oauth', { RATE_LIMIT_ANONYMOUS_MAX: '100000', RATE_LIMIT_TOKEN_MAX: '100000', CREDENTIALS_ADDRESS_MAX: '100000' });
  person = await createTestUser(stack.system);
  web = new WebClient(stack.origin);
  await signIn(web, person.name, person.password);
  publicApp = await registerApp(web, 'Reader (public)', 'public');
  confidentialApp = await registerApp(web, 'Library (confidential)', 'confidential');
  as = await discover(stack.origin);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

const publicClient = (): oauth.Client => ({ client_id: publicApp.clientId, token_endpoint_auth_method: 'none' });
const confidentialClient = (): oauth.Client => ({ client_id: confidentialApp.clientId });

/** Typed API clients (checked against the API document) per gateway origin. */
const clients = new Map<string, JsonApiClient>();
/** The typed API client of `origin` (default: the stack's gateway) as `token`. */
function api(token: string, origin = stack.origin) {
  let client = clients.get(origin);
  if (client === undefined) {
    client = new JsonApiClient(`${origin}/api/v1`, () => token);
    clients.set(origin, client);
  }
  return client.as(token);
}
/** GET /users/:id (default `me`) as `token` through the gateway at `origin`. */
const getUser = (token: string, id = 'me', origin?: string) => api(token, origin).GET('/users/{id}', { params: { path: { id } } });

/** The whole authorization code + PKCE flow for the public app, through the pages, as `person`. */
async function grant(scope: string): Promise<oauth.TokenEndpointResponse> {
  const request = await authorizationRequest(as, publicApp.clientId, scope);
  const { redirect } = await authorizeThroughPages(web, request.url, person.name, person.password);
  const params = oauth.validateAuthResponse(as, publicClient(), redirect, request.state);
  const response = await oauth.authorizationCodeGrantRequest(as, publicClient(), oauth.None(), params, REDIRECT_URI, request.verifier, INSECURE);
  return oauth.processAuthorizationCodeResponse(as, publicClient(), response);
}

/** A revoked token is refused by every gateway within a second (docs/api/auth.md, "The token check on API requests"). */
const REVOKED_EVERYWHERE = { timeoutMs: 1_000, intervalMs: 25, what: 'the token refused (401)' } as const;

async function oauthError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError) return error.error;
    throw error;
  }
  throw new Error('expected an OAuth error');
}

describe('OAuth 2.0 with a standard client library (oauth4webapi)', () => {
  it('publishes RFC 8414 metadata the library accepts', () => {
    expect(as).toMatchObject({
      issuer: stack.origin,
      authorization_endpoint: `${stack.origin}/oauth/authorize`,
      token_endpoint: `${stack.origin}/oauth/token`,
      revocation_endpoint: `${stack.origin}/oauth/revoke`,
      introspection_endpoint: `${stack.origin}/oauth/introspect`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.scopes_supported).toContain('write_ratings');
  });

  it('authorization code + PKCE through the real sign-in and consent forms yields a token that works on /users/me', async () => {
    const browser = new WebClient(stack.origin);
    const request = await authorizationRequest(as, publicApp.clientId, 'read_user write_user');
    const { consentHtml, redirect } = await authorizeThroughPages(browser, request.url, person.name, person.password);
    expect(consentHtml).toContain('Reader (public)');
    expect(consentHtml).toContain('data-scope="read_user"');
    expect(consentHtml).toContain(SCOPES.read_user);
    expect(consentHtml).toContain(SCOPES.write_user);
    expect(consentHtml).not.toContain('data-scope="read_pms"');
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('iss')).toBe(stack.origin);

    const params = oauth.validateAuthResponse(as, publicClient(), redirect, request.state);
    const tokens = await oauth.processAuthorizationCodeResponse(as, publicClient(), await oauth.authorizationCodeGrantRequest(as, publicClient(), oauth.None(), params, REDIRECT_URI, request.verifier, INSECURE));
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'read_user write_user', user: { id: person.id, name: person.name } });
    expect(tokens.access_token).toMatch(/^iwk_at_/);
    expect(tokens.refresh_token).toMatch(/^iwk_rt_/);

    const me = answer(await getUser(tokens.access_token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ data: { id: person.id, type: 'user', attributes: { name: person.name, email: person.email } } });
  });

  it('a confidential client exchanges its code with its secret (PKCE optional for it)', async () => {
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({ client_id: confidentialApp.clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'read_user', state: 'conf-1' }).toString();
    const { redirect } = await authorizeThroughPages(web, url, person.name, person.password);
    const params = oauth.validateAuthResponse(as, confidentialClient(), redirect, 'conf-1');
    const auth = oauth.ClientSecretBasic(confidentialApp.clientSecret);
    const tokens = await oauth.processAuthorizationCodeResponse(as, confidentialClient(), await oauth.authorizationCodeGrantRequest(as, confidentialClient(), auth, params, REDIRECT_URI, oauth.nopkce, INSECURE));
    expect(tokens.user).toEqual({ id: person.id, name: person.name });
    expect((await getUser(tokens.access_token)).response.status).toBe(200);
  });

  it('a refresh rotates the pair; the used refresh token is then rejected and takes the new pair down with it', async () => {
    const first = await grant('read_user');
    const refreshed = await oauth.processRefreshTokenResponse(as, publicClient(), await oauth.refreshTokenGrantRequest(as, publicClient(), oauth.None(), first.refresh_token as string, INSECURE));
    expect(refreshed.access_token).not.toBe(first.access_token);
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed).toMatchObject({ scope: 'read_user', user: { id: person.id } });
    expect((await getUser(refreshed.access_token)).response.status).toBe(200);

    const reuse = oauth.processRefreshTokenResponse(as, publicClient(), await oauth.refreshTokenGrantRequest(as, publicClient(), oauth.None(), first.refresh_token as string, INSECURE));
    expect(await oauthError(reuse)).toBe('invalid_grant');
    // Reuse detection: the family is revoked, so the rotated pair stops working too.
    await eventually(async () => (await getUser(refreshed.access_token)).response.status === 401, REVOKED_EVERYWHERE);
    const next = oauth.processRefreshTokenResponse(as, publicClient(), await oauth.refreshTokenGrantRequest(as, publicClient(), oauth.None(), refreshed.refresh_token as string, INSECURE));
    expect(await oauthError(next)).toBe('invalid_grant');
  });

  it('revocation through one gateway stops the access token within a second on another gateway too', async () => {
    const second = await stack.startGateway();
    const tokens = await grant('read_user');
    for (const origin of [stack.origin, second.origin]) {
      expect((await getUser(tokens.access_token, 'me', origin)).response.status).toBe(200);
      expect((await getUser(tokens.access_token, 'me', origin)).response.status).toBe(200);
    }

    const revoked = await oauth.revocationRequest(as, publicClient(), oauth.None(), tokens.access_token, INSECURE);
    await oauth.processRevocationResponse(revoked);
    const here = answer(await getUser(tokens.access_token));
    expect(here.status).toBe(401);
    expect(here.headers.get('www-authenticate')).toBe('Bearer realm="inkwell", error="invalid_token"');
    await eventually(async () => (await getUser(tokens.access_token, 'me', second.origin)).response.status === 401, REVOKED_EVERYWHERE);

    // Revoking the refresh token ends the grant.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, publicClient(), oauth.None(), tokens.refresh_token as string, INSECURE));
    const refresh = oauth.processRefreshTokenResponse(as, publicClient(), await oauth.refreshTokenGrantRequest(as, publicClient(), oauth.None(), tokens.refresh_token as string, INSECURE));
    expect(await oauthError(refresh)).toBe('invalid_grant');
  });

  it('client credentials: an app-only token reads public data, gets 401 on /users/me and 403 on writes', async () => {
    const auth = oauth.ClientSecretBasic(confidentialApp.clientSecret);
    const tokens = await oauth.processClientCredentialsResponse(as, confidentialClient(), await oauth.clientCredentialsGrantRequest(as, confidentialClient(), auth, new URLSearchParams(), INSECURE));
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.user).toBeUndefined();

    const user = answer(await getUser(tokens.access_token, person.id));
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ data: { id: person.id, attributes: { name: person.name } } });
    expect((user.body.data as { attributes: Record<string, unknown> }).attributes).not.toHaveProperty('email');

    const me = answer(await getUser(tokens.access_token));
    expect(me.status).toBe(401);
    expect(me.body).toMatchObject({ errors: [{ code: 'invalid_token' }] });
    const write = await api(tokens.access_token).PATCH('/users/{id}', { params: { path: { id: person.id } }, body: { data: { type: 'user', id: person.id, attributes: { bio: 'x' } } } });
    expect(write.response.status).toBe(403);

    const scoped = oauth.processClientCredentialsResponse(as, confidentialClient(), await oauth.clientCredentialsGrantRequest(as, confidentialClient(), auth, new URLSearchParams({ scope: 'read_user' }), INSECURE));
    expect(await oauthError(scoped)).toBe('invalid_scope');
  });

  it('introspection tells a confidential client about its own tokens only', async () => {
    const auth = oauth.ClientSecretBasic(confidentialApp.clientSecret);
    const own = await oauth.processClientCredentialsResponse(as, confidentialClient(), await oauth.clientCredentialsGrantRequest(as, confidentialClient(), auth, new URLSearchParams(), INSECURE));
    const described = await oauth.processIntrospectionResponse(as, confidentialClient(), await oauth.introspectionRequest(as, confidentialClient(), auth, own.access_token, INSECURE));
    expect(described).toMatchObject({ active: true, client_id: confidentialApp.clientId, token_type: 'Bearer', iss: stack.origin });
    expect(described.exp).toBeGreaterThan(Date.now() / 1000 + 3000);

    const someoneElses = await grant('read_user');
    const hidden = await oauth.processIntrospectionResponse(as, confidentialClient(), await oauth.introspectionRequest(as, confidentialClient(), auth, someoneElses.access_token, INSECURE));
    expect(hidden).toEqual({ active: false });

    const publicAttempt = await fetch(`${stack.origin}/oauth/introspect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: publicApp.clientId, token: own.access_token }) });
    expect(publicAttempt.status).toBe(401);
    expect(await publicAttempt.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('Deny on the consent page sends access_denied and the state back to the app', async () => {
    const request = await authorizationRequest(as, publicApp.clientId, 'read_user');
    const { redirect } = await authorizeThroughPages(web, request.url, person.name, person.password, 'deny');
    expect(redirect.searchParams.get('state')).toBe(request.state);
    expect(() => oauth.validateAuthResponse(as, publicClient(), redirect, request.state)).toThrow(oauth.AuthorizationResponseError);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
  });
});

describe('OAuth bad input: a clear error each time, never a 500', () => {
  it('a wrong password re-shows the sign-in form with a message and signs nobody in', async () => {
    const browser = new WebClient(stack.origin);
    const page = await browser.get('/signin');
    const fields = hiddenFields(page.text, '/signin');
    fields.set('login', person.name);
    fields.set('password', 'not the password');
    const answer = await browser.post('/signin', fields);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('do not match an account');
    expect((await browser.get('/developer')).location).toMatch(/^\/signin/);
  });

  it('repeated wrong passwords from one address lock that login there for a while: a 429 page with Retry-After', async () => {
    const target = await createTestUser(stack.system);
    const browser = new WebClient(stack.origin);
    const attempt = async (password: string) => {
      const fields = hiddenFields((await browser.get('/signin')).text, '/signin');
      fields.set('login', target.name);
      fields.set('password', password);
      return browser.post('/signin', fields);
    };
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt('wrong password')).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
    const locked = await attempt(target.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    expect(locked.text).toContain('Too many attempts');
  });

  it('a form without the session CSRF token, or from another site, is refused', async () => {
    const browser = new WebClient(stack.origin);
    await browser.get('/signin');
    const noToken = await browser.post('/signin', { login: person.name, password: person.password });
    expect(noToken.status).toBe(403);
    const csrf = hiddenFields((await web.get('/developer')).text, '/developer/tokens').get('csrf_token') ?? '';
    const crossSite = await web.post('/developer/tokens', { csrf_token: csrf, name: 'x', scope: 'read_user', lifetime_days: '30' }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
  });

  it('an unknown client or a redirect_uri that is not registered is shown as a page, never redirected', async () => {
    const request = await authorizationRequest(as, publicApp.clientId, 'read_user');
    const unknown = new URL(request.url);
    unknown.searchParams.set('client_id', 'no-such-client');
    const mismatched = new URL(request.url);
    mismatched.searchParams.set('redirect_uri', 'https://evil.example/callback');
    for (const url of [unknown, mismatched]) {
      const answer = await web.get(url.pathname + url.search);
      expect(answer.status).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text).toContain('Authorization request refused');
    }
  });

  it('before anyone signed in, an invalid request is a 400 page, never a redirect to the app (no open redirector)', async () => {
    const stranger = new WebClient(stack.origin);
    const unknownScope = (await authorizationRequest(as, publicApp.clientId, 'read_user delete_everything')).url;
    const badResponseType = (await authorizationRequest(as, publicApp.clientId, 'read_user')).url;
    badResponseType.searchParams.set('response_type', 'token');
    const noPkce = (await authorizationRequest(as, publicApp.clientId, 'read_user', false)).url;
    const plainPkce = (await authorizationRequest(as, publicApp.clientId, 'read_user')).url;
    plainPkce.searchParams.set('code_challenge_method', 'plain');
    for (const [url, error] of [
      [unknownScope, 'invalid_scope'],
      [badResponseType, 'unsupported_response_type'],
      [noPkce, 'invalid_request'],
      [plainPkce, 'invalid_request'],
    ] as const) {
      const answer = await stranger.get(url.pathname + url.search);
      expect(answer.status, error).toBe(400);
      expect(answer.location, error).toBeNull();
      expect(answer.text, error).toContain('Authorization request refused');
      expect(answer.text, error).toContain(error);
    }
    // A valid request still goes to the sign-in page first.
    const valid = (await authorizationRequest(as, publicApp.clientId, 'read_user')).url;
    expect((await stranger.get(valid.pathname + valid.search)).location).toMatch(/^\/signin\?return_to=/);
  });

  it('once signed in, unknown scopes and a public client without PKCE are redirected back as errors with the state', async () => {
    const unknownScope = await authorizationRequest(as, publicApp.clientId, 'read_user delete_everything');
    const first = await web.get(unknownScope.url.pathname + unknownScope.url.search);
    expect(first.status).toBe(303);
    const firstUrl = new URL(first.location as string);
    expect(firstUrl.origin + firstUrl.pathname).toBe(REDIRECT_URI);
    expect(Object.fromEntries(firstUrl.searchParams)).toMatchObject({ error: 'invalid_scope', state: unknownScope.state, iss: stack.origin });

    const noPkce = await authorizationRequest(as, publicApp.clientId, 'read_user', false);
    const second = await web.get(noPkce.url.pathname + noPkce.url.search);
    expect(new URL(second.location as string).searchParams.get('error')).toBe('invalid_request');
  });

  it('a wrong PKCE verifier is invalid_grant and uses the code up', async () => {
    const request = await authorizationRequest(as, publicApp.clientId, 'read_user');
    const { redirect } = await authorizeThroughPages(web, request.url, person.name, person.password);
    const params = oauth.validateAuthResponse(as, publicClient(), redirect, request.state);
    const wrong = oauth.processAuthorizationCodeResponse(as, publicClient(), await oauth.authorizationCodeGrantRequest(as, publicClient(), oauth.None(), params, REDIRECT_URI, oauth.generateRandomCodeVerifier(), INSECURE));
    expect(await oauthError(wrong)).toBe('invalid_grant');
    const late = oauth.processAuthorizationCodeResponse(as, publicClient(), await oauth.authorizationCodeGrantRequest(as, publicClient(), oauth.None(), params, REDIRECT_URI, request.verifier, INSECURE));
    expect(await oauthError(late)).toBe('invalid_grant');
  });

  it('a reused code is invalid_grant and revokes the tokens issued from it', async () => {
    const request = await authorizationRequest(as, publicApp.clientId, 'read_user');
    const { redirect } = await authorizeThroughPages(web, request.url, person.name, person.password);
    const params = oauth.validateAuthResponse(as, publicClient(), redirect, request.state);
    const exchange = () => oauth.authorizationCodeGrantRequest(as, publicClient(), oauth.None(), params, REDIRECT_URI, request.verifier, INSECURE);
    const tokens = await oauth.processAuthorizationCodeResponse(as, publicClient(), await exchange());
    expect((await getUser(tokens.access_token)).response.status).toBe(200);
    expect(await oauthError(oauth.processAuthorizationCodeResponse(as, publicClient(), await exchange()))).toBe('invalid_grant');
    await eventually(async () => (await getUser(tokens.access_token)).response.status === 401, REVOKED_EVERYWHERE);
  });

  it('the debug callback shows what came back, escaped, and says when nothing did', async () => {
    const shown = await fetch(`${stack.origin}/oauth/debug-callback?code=iwk_ac_abc&state=${encodeURIComponent('<script>x</script>')}`);
    expect(shown.status).toBe(200);
    const text = await shown.text();
    expect(text).toContain('iwk_ac_abc');
    expect(text).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(text).not.toContain('<script>');
    expect((await fetch(`${stack.origin}/oauth/debug-callback`)).status).toBe(400);
    const denied = await (await fetch(`${stack.origin}/oauth/debug-callback?error=access_denied&error_description=no`)).text();
    expect(denied).toContain('access_denied: no');
  });

  it('the token endpoint answers RFC 6749 errors for bad clients, grants and bodies', async () => {
    const token = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${stack.origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    const cases: [string, Promise<Response>, number, string][] = [
      ['unknown client (Basic)', token('grant_type=client_credentials', { authorization: `Basic ${Buffer.from('nobody:secret').toString('base64')}` }), 401, 'invalid_client'],
      ['wrong secret', token(`grant_type=client_credentials&client_id=${confidentialApp.clientId}&client_secret=wrong`), 400, 'invalid_client'],
      ['confidential client without its secret', token(`grant_type=refresh_token&client_id=${confidentialApp.clientId}&refresh_token=iwk_rt_x`), 400, 'invalid_client'],
      ['public client asking for client credentials', token(`grant_type=client_credentials&client_id=${publicApp.clientId}`), 400, 'invalid_client'],
      ['unsupported grant', token(`grant_type=urn:example:magic&client_id=${confidentialApp.clientId}&client_secret=${confidentialApp.clientSecret}`), 400, 'unsupported_grant_type'],
      ['password grant', token(`grant_type=password&username=a&password=b&client_id=${confidentialApp.clientId}&client_secret=${confidentialApp.clientSecret}`), 400, 'unsupported_grant_type'],
      ['password grant from a public client', token(`grant_type=password&username=a&password=b&client_id=${publicApp.clientId}`), 400, 'unsupported_grant_type'],
      ['an unknown grant without a client', token('grant_type=foo'), 400, 'unsupported_grant_type'],
      ['unknown code', token(`grant_type=authorization_code&code=iwk_ac_nothing&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&code_verifier=${'a'.repeat(43)}&client_id=${publicApp.clientId}`), 400, 'invalid_grant'],
      ['repeated parameter', token(`grant_type=client_credentials&grant_type=client_credentials&client_id=${confidentialApp.clientId}&client_secret=${confidentialApp.clientSecret}`), 400, 'invalid_request'],
      ['JSON instead of a form', fetch(`${stack.origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"client_credentials"}' }), 400, 'invalid_request'],
      ['an oversized form', token(`grant_type=client_credentials&pad=${'x'.repeat(20_000)}`), 413, 'invalid_request'],
    ];
    for (const [label, pending, status, error] of cases) {
      const response = await pending;
      expect(response.status, label).toBe(status);
      expect(response.headers.get('cache-control'), label).toBe('no-store');
      expect(await response.json(), label).toMatchObject({ error });
    }
    const get = await fetch(`${stack.origin}/oauth/token`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

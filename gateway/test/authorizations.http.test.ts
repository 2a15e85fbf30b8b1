import { createAppToken, createTestUser, eventually, type TestUser } from '@inkwell/testing';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type ExtraGateway, type GatewayStack } from './gateway.stack.js';
import { expectError, JsonApiClient, type Answer } from './support/json-api-client.js';
import { authorizationRequest, authorizeThroughPages, discover, INSECURE, REDIRECT_URI, registerApp, signIn, type RegisteredClient } from './support/oauth-flow.js';
import { formHtml, hiddenFields, WebClient } from './support/web-client.js';

/**
 * Authorized apps (docs/api/accounts.md, "Authorized apps"): GET /users/me/authorizations,
 * DELETE /users/me/authorizations/:app_id and the signed-in page /authorizations, with the app's
 * tokens refused on two gateway processes within a second of the revocation.
 */
let stack: GatewayStack;
let second: ExtraGateway;
let person: TestUser;
let web: WebClient;
let as: oauth.AuthorizationServer;
let reader: RegisteredClient;
let writer: RegisteredClient;
let client: JsonApiClient;

/** A revoked token is refused by every gateway within a second (docs/api/auth.md, "The token check on API requests"). */
const REFUSED_EVERYWHERE = { timeoutMs: 1_000, intervalMs: 25, what: 'the app token refused (401) on both gateways' } as const;

beforeAll(async () => {
  stack = await startGatewayStack('inkwell_gateway_authorizations', { RATE_LIMIT_ANONYMOUS_MAX: '100000', RATE_LIMIT_TOKEN_MAX: '100000', CREDENTIALS_ADDRESS_MAX: '100000' });
  second = await stack.startGateway();
  person = await createTestUser(stack.system, { scopes: ['read_user', 'write_user'] });
  web = new WebClient(stack.origin);
  await signIn(web, person.name, person.password);
  reader = await registerApp(web, 'Reader of mine', 'public');
  writer = await registerApp(web, 'Writer of mine', 'public');
  as = await discover(stack.origin);
  client = new JsonApiClient(stack.system.apiUrl, () => person.token);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

/** The authorization code + PKCE flow through the pages, as `person`, for the public app `app`. */
async function grant(app: RegisteredClient, scope: string): Promise<oauth.TokenEndpointResponse> {
  const publicClient: oauth.Client = { client_id: app.clientId, token_endpoint_auth_method: 'none' };
  const request = await authorizationRequest(as, app.clientId, scope);
  const { redirect } = await authorizeThroughPages(web, request.url, person.name, person.password);
  const params = oauth.validateAuthResponse(as, publicClient, redirect, request.state);
  return oauth.processAuthorizationCodeResponse(as, publicClient, await oauth.authorizationCodeGrantRequest(as, publicClient, oauth.None(), params, REDIRECT_URI, request.verifier, INSECURE));
}

/** Exchanges `refreshToken` of `app` at the token endpoint of `origin`: its HTTP status and OAuth error. */
async function refreshAt(origin: string, app: RegisteredClient, refreshToken: string): Promise<{ status: number; error?: string }> {
  const response = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: app.clientId }).toString(),
  });
  const body = (await response.json()) as { error?: string };
  return { status: response.status, ...(body.error === undefined ? {} : { error: body.error }) };
}

/** GET /users/me with `token` on the gateway at `origin`: the status. */
async function meStatus(token: string, origin: string): Promise<number> {
  return (await fetch(`${origin}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status;
}

const authorizations = (token = person.token): Promise<Answer> => client.call('GET', '/users/me/authorizations', { token });
const revoke = (appId: string, token = person.token): Promise<Answer> => client.call('DELETE', `/users/me/authorizations/${appId}`, { token });

/** Waits until `token` is refused on both gateways, and checks it was refused within the second. */
async function refusedOnBothGateways(token: string): Promise<void> {
  await eventually(async () => (await meStatus(token, stack.origin)) === 401 && (await meStatus(token, second.origin)) === 401, REFUSED_EVERYWHERE);
}

describe('GET and DELETE /users/me/authorizations', () => {
  it('lists the apps you authorized, and revoking one stops its access and refresh tokens within a second on two gateways', async () => {
    const laptop = await grant(reader, 'read_user');
    const phone = await grant(reader, 'read_user write_user');
    const other = await grant(writer, 'read_user');
    // Both gateways have the app's tokens cached as valid before the revocation.
    for (const origin of [stack.origin, second.origin]) {
      for (const token of [laptop.access_token, phone.access_token, other.access_token]) expect(await meStatus(token, origin)).toBe(200);
    }

    const listed = await authorizations();
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      { type: 'authorization', id: reader.clientId, attributes: { app_name: 'Reader of mine', scopes: ['read_user', 'write_user'], date_granted: expect.any(String), date_last_used: expect.any(String) } },
      { type: 'authorization', id: writer.clientId, attributes: { app_name: 'Writer of mine', scopes: ['read_user'], date_granted: expect.any(String), date_last_used: expect.any(String) } },
    ]);
    const [first] = listed.body.data as unknown as { attributes: { date_granted: string; date_last_used: string } }[];
    // Granted with the first of its two authorizations, last used by the second.
    expect(Date.parse(first!.attributes.date_last_used)).toBeGreaterThan(Date.parse(first!.attributes.date_granted));

    const revoked = await revoke(reader.clientId);
    expect(revoked.status).toBe(204);
    await refusedOnBothGateways(laptop.access_token);
    await refusedOnBothGateways(phone.access_token);
    for (const origin of [stack.origin, second.origin]) {
      for (const refresh of [laptop.refresh_token, phone.refresh_token]) expect(await refreshAt(origin, reader, refresh as string)).toEqual({ status: 400, error: 'invalid_grant' });
    }
    // The other app keeps working, and is all that is listed.
    for (const origin of [stack.origin, second.origin]) expect(await meStatus(other.access_token, origin)).toBe(200);
    expect((await authorizations()).body.data).toMatchObject([{ id: writer.clientId }]);
    expectError(await revoke(reader.clientId), 404, 'not_found');
    expectError(await revoke('no-such-app'), 404, 'not_found');
  });

  it('refuses an app, whatever its scopes: it cannot list or revoke the grants of other apps (or its own)', async () => {
    const nosy = await grant(reader, 'read_user write_user');
    const victim = await grant(writer, 'read_user');
    expectError(await authorizations(nosy.access_token), 403, 'forbidden');
    expectError(await revoke(writer.clientId, nosy.access_token), 403, 'forbidden');
    expectError(await revoke(reader.clientId, nosy.access_token), 403, 'forbidden');
    expect(await meStatus(victim.access_token, second.origin)).toBe(200);
    // A personal token needs read_user to list and write_user to revoke.
    const readOnly = await createTestUser(stack.system, { scopes: ['read_user'] });
    expect((await authorizations(readOnly.token)).body.data).toEqual([]);
    expectError(await revoke(writer.clientId, readOnly.token), 403, 'insufficient_scope');
    // `:id` is you: your own id works like `me`; anyone else's is 404 and changes nothing.
    // The writer app's authorization of the first test is older than the reader's new one.
    expect((await client.call('GET', `/users/${person.id}/authorizations`)).body.data).toMatchObject([{ id: writer.clientId }, { id: reader.clientId }]);
    const stranger = await createTestUser(stack.system, { scopes: ['read_user', 'write_user'] });
    expectError(await client.call('GET', `/users/${person.id}/authorizations`, { token: stranger.token }), 404, 'not_found');
    expectError(await client.call('DELETE', `/users/${person.id}/authorizations/${writer.clientId}`, { token: stranger.token }), 404, 'not_found');
    expect(await meStatus(victim.access_token, stack.origin)).toBe(200);
    // An app-only token has no user for `me`.
    const appOnly = await createAppToken(stack.system, { scopes: ['read_user', 'write_user'] });
    expectError(await authorizations(appOnly.token), 401, 'invalid_token');
  });
});

describe('the authorized-apps page', () => {
  it('lists the apps for the signed-in user and revokes one with the session\'s CSRF token: its tokens stop within a second on both gateways', async () => {
    const tokens = await grant(reader, 'read_user');
    expect(await meStatus(tokens.access_token, second.origin)).toBe(200);
    const page = await web.get('/authorizations');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Reader of mine');
    const form = hiddenFields(page.text, '/authorizations/revoke');
    expect(formHtml(page.text, '/authorizations/revoke')).toContain('name="client_id"');
    expect(page.text).toContain(`<input type="hidden" name="client_id" value="${reader.clientId}">`);

    // Without the session's CSRF token the form is refused and nothing is revoked.
    const forged = new URLSearchParams(form);
    forged.set('csrf_token', 'forged');
    expect((await web.post('/authorizations/revoke', forged)).status).toBe(403);
    expect(await meStatus(tokens.access_token, stack.origin)).toBe(200);

    const fields = new URLSearchParams({ csrf_token: form.get('csrf_token') ?? '', client_id: reader.clientId });
    const answer = await web.post('/authorizations/revoke', fields);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('Access of <strong>Reader of mine</strong> revoked');
    await refusedOnBothGateways(tokens.access_token);
    expect(await refreshAt(second.origin, reader, tokens.refresh_token as string)).toEqual({ status: 400, error: 'invalid_grant' });
    expect((await web.post('/authorizations/revoke', fields)).status).toBe(404);

    // Signed out, the page sends you to sign in first.
    const stranger = await new WebClient(stack.origin).get('/authorizations');
    expect(stranger.status).toBe(303);
    expect(stranger.location).toBe('/signin?return_to=%2Fauthorizations');
  });
});

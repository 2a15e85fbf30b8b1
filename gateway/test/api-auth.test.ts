import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import { createAppToken, createTestUser, eventually, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '@inkwell/client';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer as toAnswer, JsonApiClient, ok, pages, type Answer, type Body, type TypedResult } from './support/json-api-client.js';
import { signIn } from './support/oauth-flow.js';
import { elementText, hiddenFields, WebClient } from './support/web-client.js';

let stack: GatewayStack;
let client: JsonApiClient;
/** Alice holds every scope; Bob too; Carol has none; Dave only read_user. */
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let appToken: string;

beforeAll(async () => {
  stack = await startGatewayStack('inkwell_gateway_api_auth', { RATE_LIMIT_ANONYMOUS_MAX: '100000', RATE_LIMIT_TOKEN_MAX: '100000' });
  [alice, bob, carol, dave] = await Promise.all([
    createTestUser(stack.system, { scopes: SCOPE_NAMES }),
    createTestUser(stack.system, { scopes: SCOPE_NAMES }),
    createTestUser(stack.system),
    createTestUser(stack.system, { scopes: ['read_user'] }),
  ]);
  appToken = (await createAppToken(stack.system)).token;
  client = new JsonApiClient(stack.system.apiUrl, () => carol.token);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

/** The typed client (checked against the API document) as `token`: for every well-formed request. */
const api = (token: string) => client.as(token);

/**
 * A raw API call, for what the document cannot express and the test sends on purpose: malformed
 * Authorization headers (`token` undefined sends none, a string starting with a scheme is sent as
 * is) and bodies that break the document or are not JSON at all.
 */
async function call(method: string, path: string, token: string | undefined, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const authorization: Record<string, string> = token === undefined ? {} : { authorization: /^[A-Za-z]+ |^$|^Bearer$/.test(token) ? token : `Bearer ${token}` };
  const response = await fetch(`${stack.origin}/api/v1${path}`, {
    method,
    headers: { ...authorization, ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Body) };
}

const followBody = (id: string) => ({ data: { type: 'follow' as const, relationships: { followed: { data: { type: 'user' as const, id } } } } });
type UserChanges = NonNullable<components['schemas']['PatchUsersByIdRequest']['data']['attributes']>;
const patchBody = (id: string, attributes: UserChanges) => ({ data: { type: 'user' as const, id, attributes } });
/** A body for PATCH /users/:id that the document refuses (read-only or mistyped attributes): for raw calls. */
const badPatchBody = (id: string, attributes: Record<string, unknown>) => ({ data: { type: 'user', id, attributes } });

const getUser = (id: string, token: string) => api(token).GET('/users/{id}', { params: { path: { id } } });
const patchUser = (id: string, token: string, attributes: UserChanges, bodyId = id) => api(token).PATCH('/users/{id}', { params: { path: { id } }, body: patchBody(bodyId, attributes) });
const follow = (id: string, token: string, followed: string) => api(token).POST('/users/{id}/following', { params: { path: { id } }, body: followBody(followed) });
const unfollow = (id: string, token: string, followed: string) => api(token).DELETE('/users/{id}/following/{following_id}', { params: { path: { id, following_id: followed } } });

function expectScopeChallenge(result: Answer | TypedResult<unknown>, scope: string): void {
  const answer = 'response' in result ? toAnswer(result) : result;
  expect(answer.status).toBe(403);
  expect(answer.headers.get('www-authenticate')).toBe(`Bearer realm="inkwell", error="insufficient_scope", scope="${scope}"`);
  expect(answer.body.errors?.[0]?.code).toBe('insufficient_scope');
}

describe('scope matrix (docs/api/auth.md, "The token check on API requests") for the user and follow endpoints', () => {
  it('GET /users/:id needs only a valid token, of any kind', async () => {
    for (const token of [carol.token, appToken, alice.token]) {
      expect(ok(await getUser(alice.id, token)).data.attributes.name).toBe(alice.name);
    }
  });

  it('GET /users/me: a user token of any scope gets its own record; an app-only token is 401', async () => {
    const me = ok(await getUser('me', carol.token));
    expect(me.data.id).toBe(carol.id);
    expect(me.links.self).toBe(`${stack.origin}/api/v1/users/me`);
    const app = toAnswer(await getUser('me', appToken));
    expect(app.status).toBe(401);
    expect(app.body.errors?.[0]?.code).toBe('invalid_token');
  });

  const me = { params: { path: { id: 'me' } } };
  it.each([
    ['GET /users/me', () => api(appToken).GET('/users/{id}', me)],
    ['PATCH /users/me', () => api(appToken).PATCH('/users/{id}', { ...me, body: patchBody('me', { bio: 'x' }) })],
    ['GET /users/me/following', () => api(appToken).GET('/users/{id}/following', me)],
    ['POST /users/me/following', () => api(appToken).POST('/users/{id}/following', { ...me, body: followBody('1') })],
    ['GET /users/me/private-messages', () => api(appToken).GET('/users/{id}/private-messages', me)],
    ['POST /users/me/private-messages', () => api(appToken).POST('/users/{id}/private-messages', { ...me, body: { data: { type: 'private_message', attributes: { subject: 's', content: 'b' } } } })],
  ] as const)('an app-only token on %s is 401 invalid_token with the invalid_token challenge (no user behind it)', async (_label, send) => {
    const answer = toAnswer(await send());
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="inkwell", error="invalid_token"');
    expect(answer.body.errors?.[0]?.code).toBe('invalid_token');
  });

  it('email: only on your own record and only with read_user', async () => {
    expect(ok(await getUser('me', dave.token)).data.attributes.email).toBe(dave.email);
    expect(ok(await getUser(dave.id, dave.token)).data.attributes.email).toBe(dave.email);
    expect(ok(await getUser('me', carol.token)).data.attributes).not.toHaveProperty('email');
    expect(ok(await getUser(alice.id, bob.token)).data.attributes).not.toHaveProperty('email');
    expect(ok(await getUser(alice.id, appToken)).data.attributes).not.toHaveProperty('email');
  });

  it('PATCH /users/me needs write_user (403 with the scope challenge), then changes the bio', async () => {
    expectScopeChallenge(await patchUser('me', dave.token, { bio: 'nope' }, dave.id), 'write_user');
    const patched = ok(await patchUser('me', alice.token, { bio: 'I write *sagas*.' }, alice.id));
    expect(patched.data.attributes).toMatchObject({ bio: 'I write *sagas*.', bio_html: expect.stringContaining('<em>sagas</em>') });
    expect(ok(await getUser(alice.id, carol.token)).data.attributes.bio).toBe('I write *sagas*.');
  });

  it('PATCH /users/<own id> works like /users/me and accepts data.id "me" on /users/me; another id is 403 forbidden', async () => {
    ok(await patchUser(alice.id, alice.token, { bio: 'by id' }));
    ok(await patchUser('me', alice.token, { bio: 'by me' }));
    const other = toAnswer(await patchUser(alice.id, bob.token, { bio: 'hijacked', email: 'bob@evil.test' }));
    expect(other.status).toBe(403);
    expect(other.body.errors?.[0]?.code).toBe('forbidden');
    expect(other.headers.get('www-authenticate')).toBeNull();
    expect(ok(await getUser('me', alice.token)).data.attributes).toMatchObject({ bio: 'by me', email: alice.email });
  });

  it('POST /users/:id/following needs write_user and the caller as :id; DELETE likewise', async () => {
    expectScopeChallenge(await follow(dave.id, dave.token, alice.id), 'write_user');
    const onBehalf = toAnswer(await follow(alice.id, bob.token, carol.id));
    expect(onBehalf.status).toBe(403);
    expect(onBehalf.body.errors?.[0]?.code).toBe('forbidden');
    // An app-only token: `me` names nobody (401); an explicit user id is an action as that user (403).
    expect((await follow('me', appToken, carol.id)).response.status).toBe(401);
    expect((await follow(bob.id, appToken, carol.id)).response.status).toBe(403);

    const followed = ok(await follow('me', bob.token, carol.id), 201);
    expect(followed.data).toMatchObject({ type: 'follow', attributes: { date_followed: expect.any(String) }, relationships: { follower: { data: { type: 'user', id: bob.id } }, followed: { data: { type: 'user', id: carol.id } } } });
    expect(followed.data).not.toHaveProperty('links');

    expectScopeChallenge(await unfollow(dave.id, dave.token, carol.id), 'write_user');
    expect((await unfollow(bob.id, alice.token, carol.id)).response.status).toBe(403);
    ok(await unfollow(bob.id, bob.token, carol.id), 204);
    expect((await unfollow(bob.id, bob.token, carol.id)).response.status).toBe(404);
  });
});

describe('follows', () => {
  it('keeps the counts exact and lists following and followers with cursor pages', async () => {
    const fans = await Promise.all([0, 1, 2].map(() => createTestUser(stack.system, { scopes: ['write_user'] })));
    const star = await createTestUser(stack.system, { scopes: ['write_user'] });
    for (const fan of fans) ok(await follow(fan.id, fan.token, star.id), 201);
    expect(ok(await getUser(star.id, carol.token)).data.attributes).toMatchObject({ num_followers: 3, num_following: 0 });
    expect(ok(await getUser(fans[0]!.id, carol.token)).data.attributes).toMatchObject({ num_following: 1 });

    const seen: string[] = [];
    for await (const page of pages((next) => api(carol.token).GET('/users/{id}/followers', { params: { path: { id: star.id }, query: { 'page[size]': 2 } }, ...next }))) {
      for (const each of page.data) seen.push(each.relationships!.follower!.data!.id);
    }
    expect(seen).toEqual(fans.map((fan) => fan.id));

    const following = ok(await api(carol.token).GET('/users/{id}/following', { params: { path: { id: fans[1]!.id }, query: { include: 'followed' } } }));
    expect(following.included?.map((user) => user.id)).toEqual([star.id]);
  });

  it('binds a cursor to its caller and query', async () => {
    const fans = await Promise.all([0, 1].map(() => createTestUser(stack.system, { scopes: ['write_user'] })));
    for (const fan of fans) await follow('me', fan.token, dave.id);
    const params = (cursor?: string) => ({ params: { path: { id: dave.id }, query: { 'page[size]': 1, ...(cursor === undefined ? {} : { 'page[cursor]': cursor }) } } });
    const first = ok(await api(carol.token).GET('/users/{id}/followers', params()));
    const cursor = new URL(first.links.next!).searchParams.get('page[cursor]')!;
    const stolen = toAnswer(await api(bob.token).GET('/users/{id}/followers', params(cursor)));
    expect(stolen.status).toBe(400);
    expect(stolen.body.errors?.[0]).toMatchObject({ code: 'invalid_cursor', source: { parameter: 'page[cursor]' } });
    const elsewhere = await api(carol.token).GET('/users/{id}/following', params(cursor));
    expect(elsewhere.response.status).toBe(400);
  });

  it('applies the JSON:API write rules and the follow rules to the body', async () => {
    // Bodies that break the document (or are not JSON) on purpose are sent raw; the rest are typed.
    const cases: [string, unknown, number, string, string?][] = [
      ['wrong data.type', { data: { type: 'user', relationships: { followed: { data: { type: 'user', id: carol.id } } } } }, 409, 'conflict'],
      ['a client-chosen id', { data: { type: 'follow', id: '77', relationships: { followed: { data: { type: 'user', id: carol.id } } } } }, 403, 'forbidden'],
      ['an array for data', { data: [] }, 400, 'invalid_body'],
      ['no data at all', { followed: carol.id }, 400, 'invalid_body'],
      ['a read-only attribute', { data: { type: 'follow', attributes: { date_followed: '2020-01-01T00:00:00Z' }, relationships: { followed: { data: { type: 'user', id: carol.id } } } } }, 422, 'validation_failed', '/data/attributes/date_followed'],
      ['no followed relationship', { data: { type: 'follow' } }, 422, 'validation_failed', '/data/relationships/followed'],
      ['followed of the wrong type', { data: { type: 'follow', relationships: { followed: { data: { type: 'story', id: '1' } } } } }, 422, 'validation_failed'],
      ['not JSON', '{"data": ', 400, 'invalid_body'],
    ];
    for (const [label, body, status, code, pointer] of cases) {
      const answer = await call('POST', '/users/me/following', alice.token, body);
      expect(answer.status, label).toBe(status);
      expect(answer.body.errors?.[0]?.code, label).toBe(code);
      if (pointer !== undefined) expect(answer.body.errors?.[0]?.source?.pointer, label).toBe(pointer);
    }
    for (const [label, followed] of [
      ['an unknown user', '999999999'],
      ['yourself', alice.id],
    ]) {
      const answer = toAnswer(await follow('me', alice.token, followed!));
      expect(answer.status, label).toBe(422);
      expect(answer.body.errors?.[0]?.code, label).toBe('validation_failed');
      expect(answer.body.errors?.[0]?.source?.pointer, label).toBe('/data/relationships/followed');
    }
    ok(await follow('me', alice.token, dave.id), 201);
    const twice = toAnswer(await follow('me', alice.token, dave.id));
    expect(twice.status).toBe(409);
    expect(twice.body.errors?.[0]?.code).toBe('conflict');
  });

  it('applies the write rules to PATCH /users/me', async () => {
    const cases: [string, unknown, number, string, string?][] = [
      ['a read-only attribute', badPatchBody(alice.id, { name: 'renamed' }), 422, 'validation_failed', '/data/attributes/name'],
      ['a count', badPatchBody(alice.id, { num_followers: 1_000_000 }), 422, 'validation_failed', '/data/attributes/num_followers'],
      ['wrong type', { data: { type: 'follow', id: alice.id, attributes: {} } }, 409, 'conflict'],
      ['a bio that is not text', badPatchBody(alice.id, { bio: 42 }), 422, 'validation_failed', '/data/attributes/bio'],
    ];
    for (const [label, body, status, code, pointer] of cases) {
      const answer = await call('PATCH', '/users/me', alice.token, body);
      expect(answer.status, label).toBe(status);
      expect(answer.body.errors?.[0]?.code, label).toBe(code);
      if (pointer !== undefined) expect(answer.body.errors?.[0]?.source?.pointer, label).toBe(pointer);
    }
    const anotherId = toAnswer(await patchUser('me', alice.token, { bio: 'x' }, bob.id));
    expect([anotherId.status, anotherId.body.errors?.[0]?.code], 'another id').toEqual([409, 'conflict']);
    const badEmail = toAnswer(await patchUser('me', alice.token, { email: 'not-an-address' }, alice.id));
    expect([badEmail.status, badEmail.body.errors?.[0]?.code, badEmail.body.errors?.[0]?.source?.pointer], 'a bad e-mail').toEqual([422, 'validation_failed', '/data/attributes/email']);
    const taken = await patchUser('me', alice.token, { email: bob.email }, alice.id);
    expect(taken.response.status).toBe(409);
  });
});

describe('tokens and bodies that are not right: a clear error each time, never a 500', () => {
  it('no credentials: 401 with a bare Bearer challenge', async () => {
    const answer = await call('GET', `/users/${alice.id}`, undefined);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="inkwell"');
    expect(answer.body.errors?.[0]?.code).toBe('invalid_token');
  });

  it.each([
    ['an empty header', ''],
    ['the scheme alone', 'Bearer'],
    ['another scheme', 'Basic YWxpY2U6c2VjcmV0'],
    ['two tokens', `Bearer ${'a'.repeat(50)} ${'b'.repeat(50)}`],
    ['garbage', 'Bearer <script>alert(1)</script>'],
    ['a random token of the right shape', `Bearer iwk_at_${'A'.repeat(43)}`],
    ['a personal token prefix with junk', 'Bearer iwk_pat_!!!'],
    ['a huge value', `Bearer ${'x'.repeat(6000)}`],
  ])('%s: 401 invalid_token with error="invalid_token"', async (_label, header) => {
    const answer = await call('GET', `/users/${alice.id}`, header);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="inkwell", error="invalid_token"');
    expect(answer.body.errors?.[0]?.code).toBe('invalid_token');
  });

  it('an expired token: 401 invalid_token', async () => {
    const { token } = await createAppToken(stack.system, { expiresInSeconds: 2 });
    ok(await getUser(alice.id, token));
    await eventually(async () => (await getUser(alice.id, token)).response.status !== 200, { timeoutMs: 6_000, what: 'the token to expire' });
    const answer = toAnswer(await getUser(alice.id, token));
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="inkwell", error="invalid_token"');
  });

  it('a personal token minted and revoked on the developer page stops working within a second', async () => {
    const web = new WebClient(stack.origin);
    await signIn(web, carol.name, carol.password);
    const form = hiddenFields((await web.get('/developer')).text, '/developer/tokens');
    form.set('name', 'my script');
    form.append('scope', 'read_user');
    form.append('scope', 'write_user');
    form.set('lifetime_days', '30');
    const created = await web.post('/developer/tokens', form);
    expect(created.status).toBe(201);
    const token = elementText(created.text, 'token-value');
    expect(token).toMatch(/^iwk_pat_/);
    expect((await web.get('/developer')).text).not.toContain(token);

    expect(ok(await getUser('me', token)).data.attributes.email).toBe(carol.email);
    ok(await patchUser('me', token, { bio: 'scripted' }, carol.id));

    const list = (await web.get('/developer')).text;
    const row = list.slice(list.indexOf('<td>my script</td>'));
    const revoke = hiddenFields(row, '/developer/tokens/revoke');
    expect((await web.post('/developer/tokens/revoke', revoke)).status).toBe(303);
    await eventually(async () => (await getUser('me', token)).response.status === 401, { timeoutMs: 1_000, intervalMs: 25, what: 'the revoked token to be refused' });
    ok(await getUser('me', carol.token));
  });

  it('an oversized body is 413, a malformed one 400, a foreign media type 415', async () => {
    const huge = await call('PATCH', '/users/me', alice.token, JSON.stringify(patchBody(alice.id, { bio: 'x'.repeat(2 * 1024 * 1024 + 10) })));
    expect(huge.status).toBe(413);
    expect(huge.body.errors?.[0]?.code).toBe('payload_too_large');
    const malformed = await call('PATCH', '/users/me', alice.token, '{"data": {');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors?.[0]?.code).toBe('invalid_body');
    const xml = await call('PATCH', '/users/me', alice.token, '<user/>', { 'content-type': 'application/xml' });
    expect(xml.status).toBe(415);
  });

  it('scope checks come before bodies: a bad body from a token without the scope is still 403', async () => {
    expectScopeChallenge(await call('PATCH', '/users/me', carol.token, '{"not json'), 'write_user');
  });
});

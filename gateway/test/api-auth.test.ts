import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import { createAppToken, createTestUser, eventually, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { signIn } from './support/oauth-flow.js';
import { elementText, hiddenFields, WebClient } from './support/web-client.js';

interface Answer {
  status: number;
  headers: Headers;
  body: {
    data?: { id: string; type: string; attributes: Record<string, unknown>; relationships?: Record<string, { data: { type: string; id: string } }> } & Record<string, unknown>;
    errors?: { status: string; code: string; detail: string; source?: { pointer?: string; parameter?: string } }[];
    links?: Record<string, string>;
  } & Record<string, unknown>;
}

let stack: GatewayStack;
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
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

/** One API call; `token` undefined sends no Authorization header, a string starting with a scheme is sent as is. */
async function call(method: string, path: string, token: string | undefined, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const authorization: Record<string, string> = token === undefined ? {} : { authorization: /^[A-Za-z]+ |^$|^Bearer$/.test(token) ? token : `Bearer ${token}` };
  const response = await fetch(`${stack.origin}/api/v1${path}`, {
    method,
    headers: { ...authorization, ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : JSON.parse(text) };
}

const followBody = (id: string) => ({ data: { type: 'follow', relationships: { followed: { data: { type: 'user', id } } } } });
const patchBody = (id: string, attributes: Record<string, unknown>) => ({ data: { type: 'user', id, attributes } });

function expectScopeChallenge(answer: Answer, scope: string): void {
  expect(answer.status).toBe(403);
  expect(answer.headers.get('www-authenticate')).toBe(`Bearer realm="inkwell", error="insufficient_scope", scope="${scope}"`);
  expect(answer.body.errors?.[0]?.code).toBe('insufficient_scope');
}

describe('scope matrix (docs/api/auth.md, "The token check on API requests") for the user and follow endpoints', () => {
  it('GET /users/:id needs only a valid token, of any kind', async () => {
    for (const token of [carol.token, appToken, alice.token]) {
      const answer = await call('GET', `/users/${alice.id}`, token);
      expect(answer.status).toBe(200);
      expect(answer.body.data?.attributes.name).toBe(alice.name);
    }
  });

  it('GET /users/me: a user token of any scope gets its own record; an app-only token is 401', async () => {
    const me = await call('GET', '/users/me', carol.token);
    expect(me.status).toBe(200);
    expect(me.body.data?.id).toBe(carol.id);
    expect(me.body.links?.self).toBe(`${stack.origin}/api/v1/users/me`);
    const app = await call('GET', '/users/me', appToken);
    expect(app.status).toBe(401);
    expect(app.body.errors?.[0]?.code).toBe('invalid_token');
  });

  it.each([
    ['GET', '/users/me', undefined],
    ['PATCH', '/users/me', patchBody('me', { bio: 'x' })],
    ['GET', '/users/me/following', undefined],
    ['POST', '/users/me/following', followBody('1')],
    ['GET', '/users/me/private-messages', undefined],
    ['POST', '/users/me/private-messages', { data: { type: 'private_message', attributes: { subject: 's', body: 'b' } } }],
  ])('an app-only token on %s %s is 401 invalid_token with the invalid_token challenge (no user behind it)', async (method, path, body) => {
    const answer = await call(method, path, appToken, body);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="inkwell", error="invalid_token"');
    expect(answer.body.errors?.[0]?.code).toBe('invalid_token');
  });

  it('email: only on your own record and only with read_user', async () => {
    expect((await call('GET', '/users/me', dave.token)).body.data?.attributes.email).toBe(dave.email);
    expect((await call('GET', `/users/${dave.id}`, dave.token)).body.data?.attributes.email).toBe(dave.email);
    expect((await call('GET', '/users/me', carol.token)).body.data?.attributes).not.toHaveProperty('email');
    expect((await call('GET', `/users/${alice.id}`, bob.token)).body.data?.attributes).not.toHaveProperty('email');
    expect((await call('GET', `/users/${alice.id}`, appToken)).body.data?.attributes).not.toHaveProperty('email');
  });

  it('PATCH /users/me needs write_user (403 with the scope challenge), then changes the bio', async () => {
    expectScopeChallenge(await call('PATCH', '/users/me', dave.token, patchBody(dave.id, { bio: 'nope' })), 'write_user');
    const answer = await call('PATCH', '/users/me', alice.token, patchBody(alice.id, { bio: 'I write *sagas*.' }));
    expect(answer.status).toBe(200);
    expect(answer.body.data?.attributes).toMatchObject({ bio: 'I write *sagas*.', bio_html: expect.stringContaining('<em>sagas</em>') });
    expect((await call('GET', `/users/${alice.id}`, carol.token)).body.data?.attributes.bio).toBe('I write *sagas*.');
  });

  it('PATCH /users/<own id> works like /users/me and accepts data.id "me" on /users/me; another id is 403 forbidden', async () => {
    expect((await call('PATCH', `/users/${alice.id}`, alice.token, patchBody(alice.id, { bio: 'by id' }))).status).toBe(200);
    expect((await call('PATCH', '/users/me', alice.token, patchBody('me', { bio: 'by me' }))).status).toBe(200);
    const other = await call('PATCH', `/users/${alice.id}`, bob.token, patchBody(alice.id, { bio: 'hijacked', email: 'bob@evil.test' }));
    expect(other.status).toBe(403);
    expect(other.body.errors?.[0]?.code).toBe('forbidden');
    expect(other.headers.get('www-authenticate')).toBeNull();
    const after = await call('GET', '/users/me', alice.token);
    expect(after.body.data?.attributes).toMatchObject({ bio: 'by me', email: alice.email });
  });

  it('POST /users/:id/following needs write_user and the caller as :id; DELETE likewise', async () => {
    expectScopeChallenge(await call('POST', `/users/${dave.id}/following`, dave.token, followBody(alice.id)), 'write_user');
    const onBehalf = await call('POST', `/users/${alice.id}/following`, bob.token, followBody(carol.id));
    expect(onBehalf.status).toBe(403);
    expect(onBehalf.body.errors?.[0]?.code).toBe('forbidden');
    // An app-only token: `me` names nobody (401); an explicit user id is an action as that user (403).
    expect((await call('POST', '/users/me/following', appToken, followBody(carol.id))).status).toBe(401);
    expect((await call('POST', `/users/${bob.id}/following`, appToken, followBody(carol.id))).status).toBe(403);

    const followed = await call('POST', '/users/me/following', bob.token, followBody(carol.id));
    expect(followed.status).toBe(201);
    expect(followed.body.data).toMatchObject({ type: 'follow', attributes: { date_followed: expect.any(String) }, relationships: { follower: { data: { type: 'user', id: bob.id } }, followed: { data: { type: 'user', id: carol.id } } } });
    expect(followed.body.data).not.toHaveProperty('links');

    expectScopeChallenge(await call('DELETE', `/users/${dave.id}/following/${carol.id}`, dave.token), 'write_user');
    expect((await call('DELETE', `/users/${bob.id}/following/${carol.id}`, alice.token)).status).toBe(403);
    const unfollowed = await call('DELETE', `/users/${bob.id}/following/${carol.id}`, bob.token);
    expect(unfollowed.status).toBe(204);
    expect((await call('DELETE', `/users/${bob.id}/following/${carol.id}`, bob.token)).status).toBe(404);
  });
});

describe('follows', () => {
  it('keeps the counts exact and lists following and followers with cursor pages', async () => {
    const fans = await Promise.all([0, 1, 2].map(() => createTestUser(stack.system, { scopes: ['write_user'] })));
    const star = await createTestUser(stack.system, { scopes: ['write_user'] });
    for (const fan of fans) expect((await call('POST', `/users/${fan.id}/following`, fan.token, followBody(star.id))).status).toBe(201);
    expect((await call('GET', `/users/${star.id}`, carol.token)).body.data?.attributes).toMatchObject({ num_followers: 3, num_following: 0 });
    expect((await call('GET', `/users/${fans[0]?.id}`, carol.token)).body.data?.attributes).toMatchObject({ num_following: 1 });

    const seen: string[] = [];
    let next: string | undefined = `/users/${star.id}/followers?page[size]=2`;
    while (next !== undefined) {
      const page = await call('GET', next, carol.token);
      expect(page.status).toBe(200);
      for (const follow of page.body.data as unknown as { relationships: { follower: { data: { id: string } } } }[]) seen.push(follow.relationships.follower.data.id);
      next = page.body.links?.next?.replace(`${stack.origin}/api/v1`, '');
    }
    expect(seen).toEqual(fans.map((fan) => fan.id));

    const following = await call('GET', `/users/${fans[1]?.id}/following?include=followed`, carol.token);
    expect(following.status).toBe(200);
    expect((following.body.included as { id: string }[] | undefined)?.map((user) => user.id)).toEqual([star.id]);
  });

  it('binds a cursor to its caller and query', async () => {
    const fans = await Promise.all([0, 1].map(() => createTestUser(stack.system, { scopes: ['write_user'] })));
    for (const fan of fans) await call('POST', '/users/me/following', fan.token, followBody(dave.id));
    const first = await call('GET', `/users/${dave.id}/followers?page[size]=1`, carol.token);
    const cursorUrl = new URL(first.body.links?.next as string);
    const cursor = cursorUrl.searchParams.get('page[cursor]') as string;
    const stolen = await call('GET', `/users/${dave.id}/followers?page[size]=1&page[cursor]=${encodeURIComponent(cursor)}`, bob.token);
    expect(stolen.status).toBe(400);
    expect(stolen.body.errors?.[0]).toMatchObject({ code: 'invalid_cursor', source: { parameter: 'page[cursor]' } });
    const elsewhere = await call('GET', `/users/${dave.id}/following?page[size]=1&page[cursor]=${encodeURIComponent(cursor)}`, carol.token);
    expect(elsewhere.status).toBe(400);
  });

  it('applies the JSON:API write rules and the follow rules to the body', async () => {
    const cases: [string, unknown, number, string, string?][] = [
      ['wrong data.type', { data: { type: 'user', relationships: { followed: { data: { type: 'user', id: carol.id } } } } }, 409, 'conflict'],
      ['a client-chosen id', { data: { type: 'follow', id: '77', relationships: { followed: { data: { type: 'user', id: carol.id } } } } }, 403, 'forbidden'],
      ['an array for data', { data: [] }, 400, 'invalid_body'],
      ['no data at all', { followed: carol.id }, 400, 'invalid_body'],
      ['a read-only attribute', { data: { type: 'follow', attributes: { date_followed: '2020-01-01T00:00:00Z' }, relationships: { followed: { data: { type: 'user', id: carol.id } } } } }, 422, 'validation_failed', '/data/attributes/date_followed'],
      ['no followed relationship', { data: { type: 'follow' } }, 422, 'validation_failed', '/data/relationships/followed'],
      ['followed of the wrong type', { data: { type: 'follow', relationships: { followed: { data: { type: 'story', id: '1' } } } } }, 422, 'validation_failed'],
      ['an unknown user', followBody('999999999'), 422, 'validation_failed', '/data/relationships/followed'],
      ['yourself', followBody(alice.id), 422, 'validation_failed', '/data/relationships/followed'],
      ['not JSON', '{"data": ', 400, 'invalid_body'],
    ];
    for (const [label, body, status, code, pointer] of cases) {
      const answer = await call('POST', '/users/me/following', alice.token, body);
      expect(answer.status, label).toBe(status);
      expect(answer.body.errors?.[0]?.code, label).toBe(code);
      if (pointer !== undefined) expect(answer.body.errors?.[0]?.source?.pointer, label).toBe(pointer);
    }
    expect((await call('POST', '/users/me/following', alice.token, followBody(dave.id))).status).toBe(201);
    const twice = await call('POST', '/users/me/following', alice.token, followBody(dave.id));
    expect(twice.status).toBe(409);
    expect(twice.body.errors?.[0]?.code).toBe('conflict');
  });

  it('applies the write rules to PATCH /users/me', async () => {
    const cases: [string, unknown, number, string, string?][] = [
      ['a read-only attribute', patchBody(alice.id, { name: 'renamed' }), 422, 'validation_failed', '/data/attributes/name'],
      ['a count', patchBody(alice.id, { num_followers: 1_000_000 }), 422, 'validation_failed', '/data/attributes/num_followers'],
      ['another id', patchBody(bob.id, { bio: 'x' }), 409, 'conflict'],
      ['wrong type', { data: { type: 'follow', id: alice.id, attributes: {} } }, 409, 'conflict'],
      ['a bad e-mail', patchBody(alice.id, { email: 'not-an-address' }), 422, 'validation_failed', '/data/attributes/email'],
      ['a bio that is not text', patchBody(alice.id, { bio: 42 }), 422, 'validation_failed', '/data/attributes/bio'],
    ];
    for (const [label, body, status, code, pointer] of cases) {
      const answer = await call('PATCH', '/users/me', alice.token, body);
      expect(answer.status, label).toBe(status);
      expect(answer.body.errors?.[0]?.code, label).toBe(code);
      if (pointer !== undefined) expect(answer.body.errors?.[0]?.source?.pointer, label).toBe(pointer);
    }
    const taken = await call('PATCH', '/users/me', alice.token, patchBody(alice.id, { email: bob.email }));
    expect(taken.status).toBe(409);
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
    const { token } = await createAppToken(stack.system, { expiresInSeconds: 1 });
    expect((await call('GET', `/users/${alice.id}`, token)).status).toBe(200);
    await eventually(async () => (await call('GET', `/users/${alice.id}`, token)).status !== 200, { timeoutMs: 5_000, what: 'the token to expire' });
    const answer = await call('GET', `/users/${alice.id}`, token);
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

    expect((await call('GET', '/users/me', token)).body.data?.attributes.email).toBe(carol.email);
    expect((await call('PATCH', '/users/me', token, patchBody(carol.id, { bio: 'scripted' }))).status).toBe(200);

    const list = (await web.get('/developer')).text;
    const row = list.slice(list.indexOf('<td>my script</td>'));
    const revoke = hiddenFields(row, '/developer/tokens/revoke');
    expect((await web.post('/developer/tokens/revoke', revoke)).status).toBe(303);
    await eventually(async () => (await call('GET', '/users/me', token)).status === 401, { timeoutMs: 1_000, intervalMs: 25, what: 'the revoked token to be refused' });
    expect((await call('GET', '/users/me', carol.token)).status).toBe(200);
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

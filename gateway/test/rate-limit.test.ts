import { randomBytes } from 'node:crypto';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { generateToken } from '@inkwell/auth-tokens';
import { createGrpcClient, type CallerContext, type GrpcClient } from '@inkwell/grpc';
import { UsersService } from '@inkwell/proto/users';
import { createAppToken, createTestUser, freePort, type AppToken, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { eventually } from './support/json-api-client.js';

let stack: GatewayStack;
let user: TestUser;
let other: TestUser;
/** The users service, called as the gateway does, for the tokens a test needs beyond createTestUser's one. */
let users: GrpcClient<typeof UsersService>;

/** Small allowances, and a trusted proxy so that each test can present its own client address. */
const LIMITS = { RATE_LIMIT_TOKEN_MAX: '5', RATE_LIMIT_ANONYMOUS_MAX: '60', RATE_LIMIT_WINDOW_SECONDS: '300', TRUST_PROXY: 'true' };

beforeAll(async () => {
  stack = await startGatewayStack('inkwell_gateway_rate_limit', LIMITS);
  [user, other] = await Promise.all([createTestUser(stack.system), createTestUser(stack.system)]);
  users = createGrpcClient(UsersService, stack.system.addresses.users as string, { defaultDeadlineMs: 15_000, signer: stack.system.keys.signer('gateway') });
}, 240_000);

afterAll(async () => {
  users?.close();
  await stack?.stop();
});

/** A call signed as the gateway acting for `userId` (its sign-in session or token endpoint). */
function as(userId: string): { caller: CallerContext } {
  return { caller: { requestId: 'rate-limit-test', userId, scopes: [] } };
}

/** POSTs `fields` to /oauth/token and returns the successful answer. */
async function tokenEndpoint(fields: Record<string, string>): Promise<{ access_token: string; refresh_token?: string }> {
  const response = await fetch(`${stack.origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token?: string };
}

/** `person`'s authorization of `app` as the token endpoint answers it: a code stored for them (as after consent), exchanged with the app's secret. */
async function authorizationOf(app: AppToken, person: TestUser): Promise<{ access_token: string; refresh_token?: string }> {
  const code = generateToken('authorizationCode');
  const redirectUri = 'http://127.0.0.1/callback';
  const expiresAt = timestampFromDate(new Date(Date.now() + 60_000));
  await users.saveAuthorizationCode({ code, clientId: app.clientId, redirectUri, scopes: [], codeChallenge: '', codeChallengeMethod: '', expiresAt }, as(person.id));
  return tokenEndpoint({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: app.clientId, client_secret: app.clientSecret });
}

let addressCounter = 0;
/** A client address no other test uses (TEST-NET-3), so every test starts with a fresh anonymous window. */
function freshAddress(): string {
  addressCounter += 1;
  return `203.0.113.${addressCounter}`;
}

async function get(path: string, headers: Record<string, string>, origin = stack.origin): Promise<Response> {
  const response = await fetch(`${origin}/api/v1${path}`, { headers });
  await response.arrayBuffer();
  return response;
}

function limits(response: Response): { limit: number; remaining: number; reset: number } {
  return { limit: Number(response.headers.get('ratelimit-limit')), remaining: Number(response.headers.get('ratelimit-remaining')), reset: Number(response.headers.get('ratelimit-reset')) };
}

describe('rate limits (docs/api/auth.md, "Rate limits")', () => {
  it('every response carries the headers: success, 404 and 401 alike', async () => {
    const ok = await get(`/users/${user.id}`, { authorization: `Bearer ${user.token}` });
    expect(ok.status).toBe(200);
    expect(limits(ok)).toMatchObject({ limit: 5, remaining: 4 });
    expect(limits(ok).reset).toBeGreaterThan(0);
    expect(limits(ok).reset).toBeLessThanOrEqual(300);

    const missing = await get('/users/999999999', { authorization: `Bearer ${user.token}` });
    expect(missing.status).toBe(404);
    expect(limits(missing)).toMatchObject({ limit: 5, remaining: 3 });
    const unknownPath = await get('/no-such-thing', { authorization: `Bearer ${user.token}` });
    expect(unknownPath.status).toBe(404);
    expect(limits(unknownPath)).toMatchObject({ limit: 5, remaining: 2 });

    const anonymous = await get(`/users/${user.id}`, { 'x-forwarded-for': freshAddress() });
    expect(anonymous.status).toBe(401);
    expect(limits(anonymous)).toMatchObject({ limit: 60, remaining: 59 });
  });

  it('a user over the allowance gets 429 rate_limited with Retry-After; other users have their own window', async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) {
      last = await get(`/users/${other.id}`, { authorization: `Bearer ${other.token}` });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last?.headers.get('content-type')).toBe('application/vnd.api+json');
    const retryAfter = Number(last?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(limits(last as Response)).toMatchObject({ limit: 5, remaining: 0, reset: retryAfter });

    const fresh = await createTestUser(stack.system);
    expect((await get('/users/me', { authorization: `Bearer ${fresh.token}` })).status).toBe(200);
  });

  it("every token of one user counts on the user's window: a second personal token and an app's token for the user add no allowance", async () => {
    const person = await createTestUser(stack.system);
    const second = (await users.createPersonalToken({ name: 'second token', scopes: [] }, as(person.id))).token;
    const app = await createAppToken(stack.system);
    const throughApp = (await authorizationOf(app, person)).access_token;
    const address = freshAddress();
    const remaining: number[] = [];
    for (const token of [person.token, person.token, second, throughApp, throughApp]) {
      const answer = await get('/users/me', { authorization: `Bearer ${token}`, 'x-forwarded-for': address });
      expect(answer.status).toBe(200);
      remaining.push(limits(answer).remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    for (const token of [person.token, second, throughApp, (await users.createPersonalToken({ name: 'third token', scopes: [] }, as(person.id))).token]) {
      const refused = await get('/users/me', { authorization: `Bearer ${token}`, 'x-forwarded-for': address });
      expect(refused.status).toBe(429);
      expect(limits(refused)).toMatchObject({ limit: 5, remaining: 0 });
    }
    // The app's own (app-only) token counts on the app's window, not on the user's.
    const appOnly = await get(`/users/${person.id}`, { authorization: `Bearer ${app.token}`, 'x-forwarded-for': address });
    expect(appOnly.status).toBe(200);
    expect(limits(appOnly)).toMatchObject({ limit: 5, remaining: 4 });
  });

  it("every app-only token of one app counts on the app's window: a second client-credentials token adds no allowance", async () => {
    const app = await createAppToken(stack.system);
    const second = (await tokenEndpoint({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret })).access_token;
    const address = freshAddress();
    const statuses: number[] = [];
    for (const token of [app.token, app.token, app.token, second, second, second, app.token]) {
      statuses.push((await get(`/users/${user.id}`, { authorization: `Bearer ${token}`, 'x-forwarded-for': address })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });

  it('a refresh continues the same window, and the access token it replaces is refused by the gateway within a second', async () => {
    const person = await createTestUser(stack.system);
    const app = await createAppToken(stack.system);
    const first = await authorizationOf(app, person);
    const address = freshAddress();
    const before = await get('/users/me', { authorization: `Bearer ${first.access_token}`, 'x-forwarded-for': address });
    expect(before.status).toBe(200);
    expect(limits(before).remaining).toBe(4);

    const refreshed = await tokenEndpoint({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, client_id: app.clientId, client_secret: app.clientSecret });
    // The gateway had the old token cached: only the users service's revocation notice takes it out (within a second).
    const elsewhere = freshAddress();
    const refused = () => get('/users/me', { authorization: `Bearer ${first.access_token}`, 'x-forwarded-for': elsewhere });
    await eventually(refused, (answer) => answer.status === 401, 'the replaced access token refused (401)', 1_000);
    const after = await get('/users/me', { authorization: `Bearer ${refreshed.access_token}`, 'x-forwarded-for': address });
    expect(after.status).toBe(200);
    expect(limits(after).remaining).toBe(3);
  });

  it('requests without a valid token share a window per client address: the 61st is 429', async () => {
    const address = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await get(`/users/${user.id}`, { 'x-forwarded-for': address })).status);
    for (let i = 0; i < 30; i++) statuses.push((await get(`/users/${user.id}`, { 'x-forwarded-for': address, authorization: 'Bearer not-a-token' })).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    const sixtyFirst = await get(`/users/${user.id}`, { 'x-forwarded-for': address });
    expect(sixtyFirst.status).toBe(429);
    expect(Number(sixtyFirst.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = await (await fetch(`${stack.origin}/api/v1/users/${user.id}`, { headers: { 'x-forwarded-for': address } })).json();
    expect(body).toMatchObject({ errors: [{ status: '429', code: 'rate_limited' }] });

    expect((await get(`/users/${user.id}`, { 'x-forwarded-for': freshAddress() })).status).toBe(401);
  });

  it('a flood of made-up tokens is counted before it is looked up: 429 after the anonymous allowance, at most that many lookups', async () => {
    const lookups = async () => Number(/^gateway_token_lookups_total (\d+)$/m.exec(await (await fetch(stack.metricsUrl)).text())?.[1]);
    const address = freshAddress();
    const known = await createTestUser(stack.system);
    expect((await get('/users/me', { 'x-forwarded-for': address, authorization: `Bearer ${known.token}` })).status).toBe(200);
    const before = await lookups();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 100; i++) {
      last = await get(`/users/${user.id}`, { 'x-forwarded-for': address, authorization: `Bearer iwk_at_${randomBytes(32).toString('base64url')}` });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 60)).toEqual(Array<number>(60).fill(401));
    expect(statuses.slice(60)).toEqual(Array<number>(40).fill(429));
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limits(last as Response)).toMatchObject({ limit: 60, remaining: 0 });
    expect((await lookups()) - before).toBeLessThanOrEqual(60);

    // The valid token's own lookup was taken back from the address's window (60 unknown tokens got
    // through, not 59), and, cached, it keeps working from that address. A token the gateway has
    // not seen yet waits for the window like any other (it cannot be told apart without a lookup).
    const cachedAnswer = await get('/users/me', { 'x-forwarded-for': address, authorization: `Bearer ${known.token}` });
    expect(cachedAnswer.status).toBe(200);
    expect(limits(cachedAnswer)).toMatchObject({ limit: 5 });
    const unseen = await createTestUser(stack.system);
    expect((await get('/users/me', { 'x-forwarded-for': address, authorization: `Bearer ${unseen.token}` })).status).toBe(429);
    expect((await lookups()) - before).toBeLessThanOrEqual(60);
  });

  it('fails open when Redis is unreachable: requests are served, without rate-limit headers, and counted in a metric', async () => {
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const gateway = await stack.startGateway({ REDIS_URL: deadRedis, LOG_LEVEL: 'error' }, false);
    const answer = await get(`/users/${user.id}`, { authorization: `Bearer ${user.token}` }, gateway.origin);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
    const metrics = await (await fetch(gateway.metricsUrl)).text();
    expect(metrics).toMatch(/^gateway_rate_limit_fail_open_total\{reason="redis_not_ready"\} [1-9]\d*$/m);
    // Still ready (every gateway shares the Redis; docs/api/foundation.md), with Redis reported down.
    const readiness = await eventually(async () => (await fetch(`${gateway.origin}/readyz`)).json() as Promise<{ dependencies: Record<string, string> }>, (body) => body.dependencies.redis === 'down', 'redis reported down');
    expect(readiness).toMatchObject({ status: 'ok', down: ['redis'] });
  });
});

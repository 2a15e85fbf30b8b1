import { randomBytes } from 'node:crypto';
import { createTestUser, freePort, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { eventually } from './support/json-api-client.js';

let stack: GatewayStack;
let user: TestUser;
let other: TestUser;

/** Small allowances, and a trusted proxy so that each test can present its own client address. */
const LIMITS = { RATE_LIMIT_TOKEN_MAX: '5', RATE_LIMIT_ANONYMOUS_MAX: '60', RATE_LIMIT_WINDOW_SECONDS: '300', TRUST_PROXY: 'true' };

beforeAll(async () => {
  stack = await startGatewayStack('inkwell_gateway_rate_limit', LIMITS);
  [user, other] = await Promise.all([createTestUser(stack.system), createTestUser(stack.system)]);
}, 240_000);

afterAll(async () => {
  await stack?.stop();
});

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

  it('a token over its allowance gets 429 rate_limited with Retry-After; other tokens have their own window', async () => {
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
    const lookups = async () => Number(/^gateway_token_lookups_total (\d+)$/m.exec(await (await fetch(`${stack.origin}/metrics`)).text())?.[1]);
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
    const metrics = await (await fetch(`${gateway.origin}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_rate_limit_fail_open_total\{reason="redis_not_ready"\} [1-9]\d*$/m);
    // Still ready (every gateway shares the Redis; docs/api/foundation.md), with Redis reported down.
    const readiness = await eventually(async () => (await fetch(`${gateway.origin}/readyz`)).json() as Promise<{ dependencies: Record<string, string> }>, (body) => body.dependencies.redis === 'down', 'redis reported down');
    expect(readiness).toMatchObject({ status: 'ok', down: ['redis'] });
  });
});

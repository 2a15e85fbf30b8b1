import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '@inkwell/redis';
import { createAppToken, createTestUser, stackEnv, type AppToken, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { hiddenFields, WebClient, type WebResponse } from './support/web-client.js';

let stack: GatewayStack;
let redis: Redis;
let owner: TestUser;
let app: AppToken;

/** A trusted proxy, so that each test can present its own client addresses in X-Forwarded-For; the documented default budgets. */
beforeAll(async () => {
  stack = await startGatewayStack('inkwell_gateway_credentials', { TRUST_PROXY: 'true' });
  redis = createRedis(stackEnv().redisUrl);
  [owner, app] = await Promise.all([createTestUser(stack.system), createAppToken(stack.system)]);
}, 240_000);

afterAll(async () => {
  await redis?.quit();
  await stack?.stop();
});

let addressCounter = 0;
/** A client address no other test uses (TEST-NET-2). */
function freshAddress(): string {
  addressCounter += 1;
  return `198.51.100.${addressCounter}`;
}

/** A browser behind `address`: every request it sends carries that X-Forwarded-For. */
function browserAt(address: string): { web: WebClient; get: (path: string) => Promise<WebResponse>; post: (path: string, fields: URLSearchParams) => Promise<WebResponse> } {
  const web = new WebClient(stack.origin);
  const headers = { 'x-forwarded-for': address };
  return { web, get: (path) => web.get(path, headers), post: (path, fields) => web.post(path, fields, headers) };
}

/** Fills and sends the sign-in form from `address`, as a person would. */
async function signInFrom(address: string, login: string, password: string): Promise<WebResponse> {
  const browser = browserAt(address);
  const fields = hiddenFields((await browser.get('/signin')).text, '/signin');
  fields.set('login', login);
  fields.set('password', password);
  return browser.post('/signin', fields);
}

describe('credentials endpoints are throttled by their source (docs/api/auth.md, "Credentials endpoints")', () => {
  it("a stranger's six wrong passwords from one address do not stop the owner signing in from another", async () => {
    const stranger = freshAddress();
    const statuses: number[] = [];
    let last: WebResponse | undefined;
    for (let i = 0; i < 6; i++) {
      last = await signInFrom(stranger, owner.name, `wrong password ${i}`);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    const retryAfter = Number(last?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(last?.text).toContain('Too many attempts');
    // Even the right password from the stranger's address waits for the window…
    expect((await signInFrom(stranger, owner.name, owner.password)).status).toBe(429);
    // …while the owner, elsewhere, signs in at once.
    const home = await signInFrom(freshAddress(), owner.name, owner.password);
    expect(home.status).toBe(303);
  });

  it("strangers failing from many addresses lock the account only for their own addresses: the owner's right password from a fresh address signs in", async () => {
    const victim = await createTestUser(stack.system);
    // 34 addresses × 3 wrong passwords: each address stays under the gateway's budgets, so the users service's backstop decides.
    const strangers = Array.from({ length: 34 }, () => freshAddress());
    const statuses: number[] = [];
    for (const address of strangers) {
      for (let i = 0; i < 3; i++) statuses.push((await signInFrom(address, victim.name, `wrong password ${i}`)).status);
    }
    // 100 attempts per account and hour, then the account is locked (docs/api/accounts.md, "Sign-in")…
    expect(statuses.slice(0, 100)).toEqual(Array<number>(100).fill(400));
    expect(statuses.slice(100)).toEqual([429, 429]);
    // …for the addresses that took part, even with the right password…
    const stranger = await signInFrom(strangers[0] as string, victim.name, victim.password);
    expect(stranger.status).toBe(429);
    expect(stranger.text).toContain('Too many failed attempts');
    expect(Number(stranger.headers.get('retry-after'))).toBeGreaterThan(0);
    // …while the owner, from an address without failures, signs in, and that does not unlock the strangers.
    expect((await signInFrom(freshAddress(), victim.name, victim.password)).status).toBe(303);
    expect((await signInFrom(strangers[1] as string, victim.name, victim.password)).status).toBe(429);
  }, 180_000);

  it('password spraying from one address: 100 sign-ins with as many names get 429 with Retry-After after 20', async () => {
    const address = freshAddress();
    const statuses: number[] = [];
    let limited: WebResponse | undefined;
    for (let i = 0; i < 100; i++) {
      const answer = await signInFrom(address, `nobody-${randomBytes(4).toString('hex')}`, 'spring2026!!');
      statuses.push(answer.status);
      if (answer.status === 429) limited ??= answer;
    }
    expect(statuses.slice(0, 20)).toEqual(Array<number>(20).fill(400));
    expect(statuses.slice(20)).toEqual(Array<number>(80).fill(429));
    const retryAfter = Number(limited?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another address is not affected.
    expect((await signInFrom(freshAddress(), owner.name, owner.password)).status).toBe(303);
  });

  it('100 sign-ups from one address: 20 accounts, then 429 with Retry-After', async () => {
    const address = freshAddress();
    const statuses: number[] = [];
    let limited: WebResponse | undefined;
    for (let i = 0; i < 100; i++) {
      const browser = browserAt(address);
      const fields = hiddenFields((await browser.get('/signup')).text, '/signup');
      const name = `signup${randomBytes(5).toString('hex')}`;
      fields.set('name', name);
      fields.set('email', `${name}@example.org`);
      fields.set('password', 'a long enough password');
      const answer = await browser.post('/signup', fields);
      statuses.push(answer.status);
      if (answer.status === 429) limited ??= answer;
    }
    expect(statuses.slice(0, 20)).toEqual(Array<number>(20).fill(303));
    expect(statuses.slice(20)).toEqual(Array<number>(80).fill(429));
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited?.text).toContain('Too many attempts');
  });

  it('failed OAuth requests count too: after 20 failures an address gets 429 before any work, even with the right secret', async () => {
    const address = freshAddress();
    const token = (body: string, from = address) =>
      fetch(`${stack.origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from }, body });
    const good = `grant_type=client_credentials&client_id=${app.clientId}&client_secret=${encodeURIComponent(app.clientSecret)}`;
    // Successes cost nothing.
    for (let i = 0; i < 25; i++) expect((await token(good)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await token(`grant_type=client_credentials&client_id=${app.clientId}&client_secret=wrong-${i}`)).status);
    expect(statuses).toEqual(Array<number>(20).fill(400));
    const blocked = await token(good);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await blocked.json()).toMatchObject({ error: 'rate_limited' });
    const introspect = await fetch(`${stack.origin}/oauth/introspect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address }, body: `token=x&${good.slice(good.indexOf('client_id'))}` });
    expect(introspect.status).toBe(429);
    expect((await token(good, freshAddress())).status).toBe(200);
  });
});

describe('per-user caps of the users service on the developer page (docs/api/accounts.md)', () => {
  it('a 26th app is refused with a clear message (409) and nothing is registered', async () => {
    const developer = await createTestUser(stack.system);
    const browser = browserAt(freshAddress());
    const fields = hiddenFields((await browser.get('/signin')).text, '/signin');
    fields.set('login', developer.name);
    fields.set('password', developer.password);
    expect((await browser.post('/signin', fields)).status).toBe(303);
    const register = async (name: string): Promise<WebResponse> => {
      const form = hiddenFields((await browser.get('/developer')).text, '/developer/apps');
      form.set('name', name);
      form.set('redirect_uris', 'https://app.example/cb');
      form.set('type', 'public');
      return browser.post('/developer/apps', form);
    };
    for (let i = 0; i < 25; i++) expect((await register(`App ${i}`)).status).toBe(201);
    const refused = await register('App 25');
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('You already own 25 applications');
    expect((await browser.get('/developer')).text).not.toContain('App 25');
  });
});

describe('anonymous page visits write nothing to Redis (docs/api/auth.md, "Pages, sessions and CSRF")', () => {
  it('1,000 anonymous visits of /signin, /signup and /oauth/authorize add at most one key (the CSRF key) under the system prefix', async () => {
    expect(stack.system.redisKeyPrefix).not.toBe('');
    const pattern = `${stack.system.redisKeyPrefix}*`;
    const keys = async () => new Set(await redis.keys(pattern));
    const before = await keys();
    const authorize = `/oauth/authorize?client_id=${app.clientId}&response_type=code&redirect_uri=${encodeURIComponent('http://127.0.0.1/callback')}&scope=read_user`;
    const paths = ['/signin', '/signup', authorize];
    const address = freshAddress();
    let next = 0;
    const visit = async (): Promise<void> => {
      while (next < 1_000) {
        const path = paths[next % paths.length] as string;
        next += 1;
        // A fresh visitor each time: no cookie to reuse.
        const answer = await new WebClient(stack.origin).get(path, { 'x-forwarded-for': address });
        expect([200, 303]).toContain(answer.status);
      }
    };
    await Promise.all(Array.from({ length: 8 }, visit));
    const added = [...(await keys())].filter((key) => !before.has(key));
    expect(added.length).toBeLessThanOrEqual(1);
    for (const key of added) expect(key).toMatch(/inkwell:pages:[0-9a-f]{8}:csrf-key$/);
  });

  it('the sign-in form still refuses a post without the visitor cookie it was issued for (login CSRF)', async () => {
    const address = freshAddress();
    const first = browserAt(address);
    const fields = hiddenFields((await first.get('/signin')).text, '/signin');
    fields.set('login', owner.name);
    fields.set('password', owner.password);
    // Another browser (without the first one's visitor cookie) posting the first one's token: 403.
    expect((await browserAt(address).post('/signin', fields)).status).toBe(403);
    expect((await first.post('/signin', fields)).status).toBe(303);
  });
});

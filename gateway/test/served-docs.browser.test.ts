import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestUser, type TestUser } from '@inkwell/testing';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERROR_CODES } from '../src/jsonapi/error.mapping.js';
import { apiDocument } from '../src/openapi/api.document.js';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { launchChromium, saveScreenshot } from './support/chromium.js';
import { authorizationRequest, authorizeThroughPages, discover, registerApp, signIn, type RegisteredClient } from './support/oauth-flow.js';
import { WebClient } from './support/web-client.js';

let stack: GatewayStack;
let browser: Browser;
let person: TestUser;

/** A tiny static web app on its own loopback port: another origin than the gateway's. */
async function staticSite(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>web app</title><p>a browser app</p>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let appSite: { server: Server; origin: string };
let otherSite: { server: Server; origin: string };

beforeAll(async () => {
  [appSite, otherSite] = await Promise.all([staticSite(), staticSite()]);
  stack = await startGatewayStack('inkwell_gateway_served_docs');
  person = await createTestUser(stack.system);
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  for (const site of [appSite, otherSite]) await new Promise((resolve) => site?.server.close(resolve));
});

/** The links of an HTML text: every href, entities decoded. */
function hrefs(text: string): string[] {
  return [...text.matchAll(/\shref="([^"]*)"/g)].map((match) => (match[1] as string).replaceAll('&amp;', '&'));
}

describe('the documentation the gateway serves (docs/api/reference.md, "Served pages")', () => {
  it('answers every link of the served pages, of /docs as Chromium renders it, and of the API document with 200, headings included', async () => {
    const page = await browser.newPage();
    await page.goto(`${stack.origin}/docs`);
    await page.locator('.info .title').first().waitFor({ timeout: 30_000 });
    await page.locator('.info .description a').first().waitFor({ timeout: 30_000 });
    const rendered = await page.$$eval('a[href]', (anchors) => anchors.map((anchor) => anchor.getAttribute('href') ?? ''));
    await page.close();
    const described = [...JSON.stringify(apiDocument()).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
    expect(described.length).toBeGreaterThan(3);

    const queue = [...new Set([`/docs/api`, ...rendered, ...described, ...Object.keys(API_ERROR_CODES).map((code) => `/docs/errors/${code}`)])];
    const visited = new Map<string, string>();
    const failures: string[] = [];
    const fragments: [string, string, string][] = [];
    while (queue.length > 0) {
      const href = queue.shift() as string;
      if (href.startsWith('#') || /^(mailto:|https?:\/\/(?!127\.0\.0\.1))/.test(href)) continue;
      const url = new URL(href, `${stack.origin}/docs`);
      if (url.origin !== stack.origin) continue;
      if (/\.md$/.test(url.pathname) || url.pathname.includes('/src/')) failures.push(`${href}: names a repository path`);
      if (url.hash !== '') fragments.push([href, url.pathname, decodeURIComponent(url.hash.slice(1))]);
      if (visited.has(url.pathname)) continue;
      const response = await fetch(new URL(url.pathname, stack.origin));
      const text = await response.text();
      visited.set(url.pathname, text);
      if (response.status !== 200) failures.push(`${url.pathname}: ${response.status}`);
      if (!response.headers.get('content-type')?.startsWith('text/html')) continue;
      for (const link of hrefs(text)) queue.push(link.startsWith('#') ? `${url.pathname}${link}` : new URL(link, url).href);
    }
    for (const [href, path, id] of fragments) if (!visited.get(path)?.includes(` id="${id}"`)) failures.push(`${href}: no heading ${id}`);
    expect(failures).toEqual([]);
    expect([...visited.keys()]).toEqual(expect.arrayContaining(['/docs/api', '/docs/api/lists', '/docs/api/auth', '/docs/api/reference', '/docs/errors/invalid_token']));
  }, 120_000);

  it('serves the pages with an ETag, answers 304 to it, lets caches keep them briefly, and lets nothing run on them', async () => {
    const first = await fetch(`${stack.origin}/docs/api/lists`);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    expect(first.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(first.headers.get('content-security-policy')).not.toContain('script-src');
    const text = await first.text();
    expect(text).toContain('<h1 id="lists');
    expect(text).not.toMatch(/href="[^"]*\.md/);
    const again = await fetch(`${stack.origin}/docs/api/lists`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    const document = await fetch(`${stack.origin}/api/v1/openapi.json`);
    expect((await fetch(`${stack.origin}/api/v1/openapi.json`, { headers: { 'if-none-match': document.headers.get('etag') as string } })).status).toBe(304);
    expect((await fetch(`${stack.origin}/docs/api/no-such-page`)).status).toBe(404);
    expect((await fetch(`${stack.origin}/docs/api/../../package.json`)).status).toBe(404);
  });
});

describe('"Authorize" on /docs (docs/api/reference.md, "Try it: Authorize")', () => {
  it('signs in through the docs client with PKCE in Chromium and then gets a 200 from a protected endpoint', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const exchanges: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/oauth/token') exchanges.push(response.status());
    });
    const sent: { authorization: string | undefined; status: number }[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/api/v1/users/me') sent.push({ authorization: response.request().headers().authorization, status: response.status() });
    });
    await page.goto(`${stack.origin}/docs`);
    await page.locator('.btn.authorize').first().click();
    const flow = page.locator('.auth-container:has(#client_id_authorizationCode)');
    await flow.waitFor({ timeout: 15_000 });
    await expect(flow.locator('#client_id_authorizationCode').inputValue()).resolves.toBe('inkwell-api-docs');
    await flow.getByText('select all', { exact: true }).click();
    const [popup] = await Promise.all([page.waitForEvent('popup'), flow.locator('button.authorize').click()]);
    await popup.waitForURL((url) => url.pathname === '/signin');
    await popup.fill('#login', person.name);
    await popup.fill('#password', person.password);
    await Promise.all([popup.waitForURL((url) => url.pathname === '/oauth/authorize'), popup.click('button[type=submit]')]);
    await expect(popup.locator('h1').textContent()).resolves.toContain('Inkwell API reference');
    await Promise.all([popup.waitForEvent('close'), popup.click('#approve')]);

    // Swagger UI exchanged the code (PKCE, no secret) and now shows the flow as authorized (the client id is no longer an input).
    await expect.poll(() => exchanges, { timeout: 15_000 }).toEqual([200]);
    await page.locator('.auth-container').filter({ hasText: 'authorizationCode' }).locator('button', { hasText: 'Logout' }).waitFor({ timeout: 15_000 });
    await page.locator('.dialog-ux .close-modal').first().click();

    const operation = page.locator('#operations-users-getUsersById');
    await tryOperation(operation, { id: 'me' });
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ timeout: 15_000 });
    await expect(status.textContent()).resolves.toContain('200');
    await expect(operation.locator('.live-responses-table').textContent()).resolves.toContain(person.name);
    expect(sent).toEqual([{ authorization: expect.stringMatching(/^Bearer iwk_at_/), status: 200 }]);
    await saveScreenshot(page, 'docs-try-it.png', false);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});

/** Opens `operation`, presses "Try it out", fills the `parameters` in and presses "Execute". */
async function tryOperation(operation: Locator, parameters: Readonly<Record<string, string>>): Promise<void> {
  await operation.locator('.opblock-summary-control').click();
  await operation.locator('button.try-out__btn').click();
  for (const [name, value] of Object.entries(parameters)) await operation.locator(`tr[data-param-name="${name}"] input`).fill(value);
  await operation.locator('button.execute').click();
}

describe('browser apps (docs/api/auth.md, "Browser apps (CORS)")', () => {
  let app: RegisteredClient;
  let redirectUri: string;

  beforeAll(async () => {
    redirectUri = `${appSite.origin}/callback`;
    const developer = new WebClient(stack.origin);
    await signIn(developer, person.name, person.password);
    app = await registerApp(developer, 'Browser Reader', 'public', [redirectUri], [appSite.origin]);
  });

  /** Runs fetch in a page of `origin` (Chromium enforces CORS); the answer, or how it failed. */
  async function fetchFrom(origin: string, url: string, init: { method?: string; headers?: Record<string, string>; form?: Record<string, string> }): Promise<{ status?: number; headers?: Record<string, string | null>; body?: string; error?: string }> {
    const page = await browser.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ({ url, init }) => {
          try {
            const response = await fetch(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form) }) });
            const names = ['ratelimit-limit', 'ratelimit-remaining', 'etag', 'x-request-id', 'content-type'];
            return { status: response.status, headers: Object.fromEntries(names.map((name) => [name, response.headers.get(name)])), body: await response.text() };
          } catch (error) {
            return { error: String(error) };
          }
        },
        { url, init },
      );
    } finally {
      await page.close();
    }
  }

  it('lets the registered origin exchange a code and call the API with the token, reading the rate-limit headers; another origin is refused', async () => {
    const as = await discover(stack.origin);
    const request = await authorizationRequest(as, app.clientId, 'read_user', true, redirectUri);
    const outcome = await authorizeThroughPages(new WebClient(stack.origin), request.url, person.name, person.password);
    const code = outcome.redirect.searchParams.get('code') as string;
    const form = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: app.clientId, code_verifier: request.verifier };

    // Another origin cannot read an answer of the token endpoint (a form POST is sent without a preflight, so it is tried with a code of no use).
    const refusedExchange = await fetchFrom(otherSite.origin, `${stack.origin}/oauth/token`, { method: 'POST', form: { ...form, code: 'iwk_ac_unknown' } });
    expect(refusedExchange.error).toMatch(/Failed to fetch/);
    const exchanged = await fetchFrom(appSite.origin, `${stack.origin}/oauth/token`, { method: 'POST', form });
    expect(exchanged.status, exchanged.body ?? exchanged.error).toBe(200);
    const token = (JSON.parse(exchanged.body as string) as { access_token: string }).access_token;
    expect(token).toMatch(/^iwk_at_/);

    const bearer = { authorization: `Bearer ${token}` };
    const allowed = await fetchFrom(appSite.origin, `${stack.system.apiUrl}/users/me`, { headers: bearer });
    expect(allowed.status, allowed.error).toBe(200);
    expect(JSON.parse(allowed.body as string)).toMatchObject({ data: { id: person.id } });
    expect(allowed.headers?.['ratelimit-limit']).toMatch(/^\d+$/);
    expect(allowed.headers?.etag).toMatch(/^"/);
    expect(allowed.headers?.['x-request-id']).not.toBeNull();
    const refused = await fetchFrom(otherSite.origin, `${stack.system.apiUrl}/users/me`, { headers: bearer });
    expect(refused.error).toMatch(/Failed to fetch/);

    // Revoking from the app's origin works, and the token is then refused.
    const revoked = await fetchFrom(appSite.origin, `${stack.origin}/oauth/revoke`, { method: 'POST', form: { token, client_id: app.clientId } });
    expect(revoked.status, revoked.error).toBe(200);
    const afterRevoke = await fetchFrom(appSite.origin, `${stack.system.apiUrl}/users/me`, { headers: bearer });
    expect(afterRevoke.status, afterRevoke.error).toBe(401);
  }, 120_000);

  it('answers preflights for registered origins only, cached, never with credentials; a token decides the answer', async () => {
    const preflight = (origin: string, path: string) =>
      fetch(`${stack.origin}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    const allowed = await preflight(appSite.origin, '/api/v1/users/me');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(appSite.origin);
    expect(allowed.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(allowed.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(Number(allowed.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    expect(allowed.headers.get('vary')).toContain('Origin');
    const tokenPreflight = await preflight(appSite.origin, '/oauth/token');
    expect(tokenPreflight.headers.get('access-control-allow-origin')).toBe(appSite.origin);
    expect(tokenPreflight.headers.get('access-control-allow-methods')).toBe('POST');
    for (const refused of [await preflight(otherSite.origin, '/api/v1/users/me'), await preflight(otherSite.origin, '/oauth/token'), await preflight('null', '/api/v1/users/me')]) {
      expect([...refused.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }

    // A personal token belongs to no app: no origin is allowed with it.
    const personal = await createTestUser(stack.system, { scopes: ['read_user'] });
    const withPersonal = await fetch(`${stack.system.apiUrl}/users/me`, { headers: { origin: appSite.origin, authorization: `Bearer ${personal.token}` } });
    expect(withPersonal.status).toBe(200);
    expect(withPersonal.headers.get('access-control-allow-origin')).toBeNull();
    // Without a valid token, a registered origin can read the 401 (to sign in again); another cannot.
    const unauthenticated = await fetch(`${stack.system.apiUrl}/users/me`, { headers: { origin: appSite.origin } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe(appSite.origin);
    expect(unauthenticated.headers.get('access-control-expose-headers')).toContain('RateLimit-Remaining');
    expect((await fetch(`${stack.system.apiUrl}/users/me`, { headers: { origin: otherSite.origin } })).headers.get('access-control-allow-origin')).toBeNull();
    // Without Origin nothing changes.
    expect((await fetch(`${stack.system.apiUrl}/users/me`)).headers.get('vary')).toBe('Authorization');
  });
});

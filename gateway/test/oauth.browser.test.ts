import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SCOPES } from '@inkwell/auth-tokens';
import { createTestUser, type TestUser } from '@inkwell/testing';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { launchChromium, saveScreenshot } from './support/chromium.js';
import { authorizationRequest, discover, INSECURE, registerApp, signIn, type RegisteredClient } from './support/oauth-flow.js';
import { WebClient } from './support/web-client.js';

let stack: GatewayStack;
let browser: Browser;
let person: TestUser;
let app: RegisteredClient;
/** The third-party app's callback: a real HTTP server the browser lands on. */
let appServer: Server;
let redirectUri: string;

beforeAll(async () => {
  appServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>the app</p>'));
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/callback`;
  stack = await startGatewayStack('inkwell_gateway_browser');
  person = await createTestUser(stack.system);
  const developer = new WebClient(stack.origin);
  await signIn(developer, person.name, person.password);
  app = await registerApp(developer, 'Story Reader', 'public', [redirectUri]);
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => appServer?.close(resolve));
});

describe('the consent flow in a real browser (Chromium via playwright-core)', () => {
  it('signs in, shows every requested scope in plain words, and after Allow lands on the redirect URI with a code', async () => {
    const as = await discover(stack.origin);
    const request = await authorizationRequest(as, app.clientId, 'read_user write_user read_stories', true, redirectUri);
    const page = await browser.newPage();

    await page.goto(request.url.href);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await page.fill('#login', person.name);
    await page.fill('#password', person.password);
    await Promise.all([page.waitForURL((url) => url.pathname === '/oauth/authorize'), page.click('button[type=submit]')]);

    await expect.poll(() => page.locator('h1').textContent()).toContain('Story Reader');
    const scopes = await page.locator('#scopes li').allTextContents();
    expect(scopes).toHaveLength(3);
    for (const scope of ['read_user', 'write_user', 'read_stories'] as const) {
      expect(scopes.some((text) => text.includes(SCOPES[scope]) && text.includes(scope))).toBe(true);
    }
    const screenshot = await saveScreenshot(page, 'consent.png', true);

    await Promise.all([page.waitForURL((url) => url.href.startsWith(redirectUri)), page.click('#approve')]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe(request.state);
    expect(landed.searchParams.get('code')).toMatch(/^iwk_ac_/);
    expect(existsSync(screenshot)).toBe(true);

    // The code the browser brought back is a real one.
    const client: oauth.Client = { client_id: app.clientId, token_endpoint_auth_method: 'none' };
    const params = oauth.validateAuthResponse(as, client, landed, request.state);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, request.verifier, INSECURE));
    expect(tokens).toMatchObject({ scope: 'read_user write_user read_stories', user: { id: person.id } });
    await page.close();
  });
});

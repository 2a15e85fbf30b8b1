import { createTestUser } from '@inkwell/testing';
import { Jsona } from 'jsona';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERROR_CODES } from '../src/jsonapi/error.mapping.js';
import { apiDocument } from '../src/openapi/api.document.js';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { launchChromium, saveScreenshot } from './support/chromium.js';

let stack: GatewayStack;
let browser: Browser;

beforeAll(async () => {
  stack = await startGatewayStack('inkwell_gateway_docs');
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('the API describes itself (docs/api/reference.md)', () => {
  it('serves the generated document at /api/v1/openapi.json without a token', async () => {
    const response = await fetch(`${stack.origin}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).not.toBeNull();
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(apiDocument())));
  });

  it('still needs a token for everything else under /api/v1', async () => {
    expect((await fetch(`${stack.origin}/api/v1/stories`)).status).toBe(401);
  });

  it('renders /docs in Chromium with every endpoint and no console error, under a CSP that allows only the page', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    const external: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(stack.origin) && !request.url().startsWith('data:')) external.push(request.url());
    });

    const response = await page.goto(`${stack.origin}/docs`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');

    const described = apiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
    const operations = Object.values(described.paths).flatMap((methods) => Object.values(methods));
    // Waits until the last operation's block exists (a string predicate for waitForFunction would be refused by the page's CSP: no 'unsafe-eval').
    await page.locator('.opblock').nth(operations.length - 1).waitFor({ state: 'attached', timeout: 30_000 });
    const shown = await page.$$eval('.opblock', (blocks) => blocks.map((block) => block.getAttribute('id') ?? ''));
    for (const operation of operations) expect(shown.some((id) => id.endsWith(`-${operation.operationId}`)), operation.operationId).toBe(true);
    await expect(page.locator('.info .title').first().textContent()).resolves.toContain('Inkwell API');

    // Opening an operation shows its parameters, filters with their syntax included.
    await page.click('#operations-stories-getStories .opblock-summary-control');
    await page.locator('#operations-stories-getStories').getByText('filter[num_words]', { exact: true }).waitFor({ timeout: 15_000 });
    await expect(page.locator('#operations-stories-getStories').textContent()).resolves.toContain('an inclusive range');

    await saveScreenshot(page, 'api-docs.png', false);
    expect(problems).toEqual([]);
    expect(external).toEqual([]);
    // The API's own responses keep their policies: the docs CSP is for the page only.
    expect((await fetch(`${stack.origin}/signin`)).headers.get('content-security-policy')).not.toContain("script-src 'self'");
    await page.close();
  }, 120_000);

  it("points every error's links.about at a page about its code", async () => {
    const response = await fetch(`${stack.origin}/api/v1/stories`);
    const body = (await response.json()) as { errors: { code: string; links: { about: string } }[] };
    const about = body.errors[0]?.links.about as string;
    expect(about).toBe('/docs/errors/invalid_token');
    const page = await fetch(new URL(about, response.url));
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('invalid_token');
    expect(text).toContain('HTTP 401');
    for (const code of Object.keys(API_ERROR_CODES)) expect((await fetch(`${stack.origin}/docs/errors/${code}`)).status, code).toBe(200);
    expect((await fetch(`${stack.origin}/docs/errors/no_such_code`)).status).toBe(404);
    expect((await fetch(`${stack.origin}/docs/assets/package.json`)).status).toBe(404);
  });
});

describe('a generic JSON:API client library (jsona) against the API, unmodified', () => {
  it('serialises a story the API accepts and deserialises a compound document', async () => {
    const author = await createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] });
    const jsona = new Jsona();
    const headers = { authorization: `Bearer ${author.token}`, 'content-type': 'application/vnd.api+json' };
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${stack.system.apiUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      expect(response.status, `${method} ${path}`).toBeLessThan(300);
      return (await response.json()) as Parameters<Jsona['deserialize']>[0];
    };

    const created = jsona.deserialize(await send('POST', '/stories', jsona.serialize({ stuff: { type: 'story', title: 'Read by jsona', status: 'complete' } }))) as { id: string; title: string };
    expect(created.title).toBe('Read by jsona');
    await send('POST', `/stories/${created.id}/chapters`, jsona.serialize({ stuff: { type: 'chapter', title: 'Opening', content: 'Once upon a time.', published: true } }));

    const story = jsona.deserialize(await send('GET', `/stories/${created.id}?include=author,chapters`)) as { title: string; status: string; author: { id: string; name: string }; chapters: { title: string }[] };
    expect(story).toMatchObject({ title: 'Read by jsona', status: 'complete', author: { id: author.id, name: author.name } });
    expect(story.chapters.map((chapter) => chapter.title)).toEqual(['Opening']);
  });
});

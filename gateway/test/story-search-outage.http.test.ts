import { createTestUser, freePort, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';

/**
 * A system whose OpenSearch is unreachable (OPENSEARCH_URL names a port nobody listens on):
 * GET /stories is 503 with Retry-After, everything else keeps answering (docs/api/stories.md,
 * "GET /stories" and "Search").
 */
describe('GET /stories while the search index is unreachable', () => {
  let stack: GatewayStack;
  let user: TestUser;

  beforeAll(async () => {
    stack = await startGatewayStack('inkwell_test_gateway_search_outage', { OPENSEARCH_URL: `http://127.0.0.1:${await freePort()}` });
    user = await createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] });
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const get = (path: string) => fetch(`${stack.system.apiUrl}${path}`, { headers: { authorization: `Bearer ${user.token}` } });

  it('answers 503 unavailable with Retry-After, with or without a query', async () => {
    for (const path of ['/stories', '/stories?query=heart&sort=-relevance&facets=tags']) {
      const response = await get(path);
      expect(response.status, path).toBe(503);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = (await response.json()) as { errors: { code: string; detail?: string }[] };
      expect(body.errors[0]!.code).toBe('unavailable');
      expect(JSON.stringify(body)).not.toMatch(/opensearch|ECONNREFUSED|127\.0\.0\.1/i);
    }
  });

  it('keeps every other route working, shelf lists and one author’s stories included', async () => {
    const created = await fetch(`${stack.system.apiUrl}/stories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/vnd.api+json' },
      body: JSON.stringify({ data: { type: 'story', attributes: { title: 'Written while search is down' } } }),
    });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };
    for (const path of [`/stories/${data.id}`, '/tags', '/users/me', `/users/${user.id}/stories`, '/stories?filter[bookshelf]=1']) {
      expect((await get(path)).status, path).toBe(200);
    }
    expect((await fetch(`${stack.system.gatewayUrl}/readyz`)).status).toBe(200);
  });
});

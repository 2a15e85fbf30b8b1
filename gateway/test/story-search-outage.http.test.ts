import { createTestUser, freePort, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, expectError, JsonApiClient, ok } from './support/json-api-client.js';

/**
 * A system whose OpenSearch is unreachable (OPENSEARCH_URL names a port nobody listens on):
 * GET /stories is 503 with Retry-After, everything else keeps answering (docs/api/stories.md,
 * "GET /stories" and "Search").
 */
describe('GET /stories while the search index is unreachable', () => {
  let stack: GatewayStack;
  let user: TestUser;
  let client: JsonApiClient;

  beforeAll(async () => {
    stack = await startGatewayStack('inkwell_test_gateway_search_outage', { OPENSEARCH_URL: `http://127.0.0.1:${await freePort()}` });
    user = await createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'write_bookshelves'] });
    client = new JsonApiClient(stack.system.apiUrl, () => user.token);
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 503 unavailable with Retry-After, with or without a query', async () => {
    const api = client.as(user.token);
    const answers = {
      '/stories': answer(await api.GET('/stories')),
      'a search': answer(await api.GET('/stories', { params: { query: { query: 'heart', sort: '-relevance' } } })),
      'a search with facets': answer(await api.GET('/stories', { params: { query: { query: 'heart', sort: '-relevance', facets: 'tags' } } })),
    };
    for (const [label, result] of Object.entries(answers)) {
      expectError(result, 503, 'unavailable');
      expect(Number(result.headers.get('retry-after')), label).toBeGreaterThan(0);
      expect(JSON.stringify(result.body)).not.toMatch(/opensearch|ECONNREFUSED|127\.0\.0\.1/i);
    }
  });

  it('keeps every other route working, shelf lists and one author’s stories included', async () => {
    const api = client.as(user.token);
    const created = ok(await api.POST('/stories', { body: { data: { type: 'story', attributes: { title: 'Written while search is down' } } } }), 201).data;
    ok(await api.GET('/stories/{id}', { params: { path: { id: created.id } } }));
    ok(await api.GET('/tags'));
    ok(await api.GET('/users/{id}', { params: { path: { id: 'me' } } }));
    ok(await api.GET('/users/{id}/stories', { params: { path: { id: user.id } } }));
    const shelf = ok(await api.POST('/users/{id}/bookshelves', { params: { path: { id: 'me' } }, body: { data: { type: 'bookshelf', attributes: { name: 'Read while search is down', privacy: 'public' } } } }), 201).data;
    ok(await api.GET('/stories', { params: { query: { 'filter[bookshelf]': shelf.id } } }));
    expect((await fetch(`${stack.system.gatewayUrl}/readyz`)).status).toBe(200);
  });
});

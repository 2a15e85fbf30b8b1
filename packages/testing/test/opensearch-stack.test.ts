import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { stackEnv } from '../src/stack-env.js';

/**
 * The OpenSearch node of the stack (tools/stack/up.sh, testcontainers, or OPENSEARCH_URL) is one
 * that story search can be built on: it answers, its cluster is usable, and it has the analysis
 * modules (the `english` analyzer stems and drops stop words). Real node, no mocks.
 */
const baseUrl = stackEnv().opensearchUrl;
/** A throwaway index of this run only (own prefix, as test systems get: docs/api/foundation.md). */
const indexName = `t-${randomUUID().slice(0, 8)}.stack-check`;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe(`OpenSearch at ${baseUrl}`, () => {
  afterAll(async () => {
    // Also after a failed assertion: never leave the index behind on the shared node.
    await fetch(`${baseUrl}/${indexName}`, { method: 'DELETE' });
  });

  it('answers as an OpenSearch 3.x node', async () => {
    const { status, json } = await call('GET', '/');
    expect(status).toBe(200);
    const version = json.version as { distribution: string; number: string };
    expect(version.distribution).toBe('opensearch');
    expect(version.number).toMatch(/^3\./);
  });

  it('has a green or yellow cluster', async () => {
    const { status, json } = await call('GET', '/_cluster/health?wait_for_status=yellow&timeout=20s');
    expect(status).toBe(200);
    expect(['green', 'yellow']).toContain(json.status);
    expect(json.number_of_nodes).toBeGreaterThanOrEqual(1);
  });

  it('creates an index whose english analyzer stems words and drops stop words, and deletes it', async () => {
    const created = await call('PUT', `/${indexName}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    expect(created.status).toBe(200);
    expect(created.json.acknowledged).toBe(true);

    const analyzed = await call('POST', `/${indexName}/_analyze`, { analyzer: 'english', text: 'hearts' });
    expect(analyzed.status).toBe(200);
    expect((analyzed.json.tokens as { token: string }[]).map((t) => t.token)).toEqual(['heart']);

    const sentence = await call('POST', `/${indexName}/_analyze`, { analyzer: 'english', text: 'The Running of the Hearts' });
    expect((sentence.json.tokens as { token: string }[]).map((t) => t.token)).toEqual(['run', 'heart']);

    const deleted = await call('DELETE', `/${indexName}`);
    expect(deleted.status).toBe(200);
    expect((await call('GET', `/${indexName}`)).status).toBe(404);
  });
});

import { createTestUser, eventually, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type ExtraGateway, type GatewayStack } from './gateway.stack.js';

const DATABASE = 'inkwell_test_gateway_cache';
/** The event path's bound (docs/api/foundation.md, "Caching at the edge") with room for a busy machine. */
const EVENT_WAIT_MS = 10_000;

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: { data?: Resource; included?: Resource[]; errors?: { code: string }[] };
}

let stack: GatewayStack;
/** A second gateway process: it learns of writes made through the first one only from the events. */
let second: ExtraGateway;
let author: TestUser;
let reader: TestUser;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  second = await stack.startGateway();
  [author, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'read_user', 'write_user'] }),
    createTestUser(stack.system, { scopes: ['read_stories', 'read_user'] }),
  ]);
  // Each process serves its cache once its own consumer group fetches: wait for both, or the tests would only see the backends.
  for (const origin of [stack.origin, second.origin]) {
    await eventually(async () => /^gateway_public_cache_live 1$/m.test(await (await fetch(`${origin}/metrics`)).text()), { timeoutMs: 60_000, intervalMs: 200 });
  }
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

async function api(origin: string, method: string, path: string, token: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const response = await fetch(`${origin}/api/v1${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
}

function ok(answer: Answer, status = 200): Answer['body'] {
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

/** A published story of the author with one published chapter, created through the first gateway. */
async function publishedStory(title: string): Promise<string> {
  const story = ok(await api(stack.origin, 'POST', '/stories', author.token, { body: { data: { type: 'story', attributes: { title } } } }), 201).data!;
  ok(await api(stack.origin, 'POST', `/stories/${story.id}/chapters`, author.token, { body: { data: { type: 'chapter', attributes: { title: 'One', content: 'a few words', published: true } } } }), 201);
  ok(await api(stack.origin, 'PATCH', `/stories/${story.id}`, author.token, { body: { data: { type: 'story', id: story.id, attributes: { published: true } } } }));
  return story.id;
}

/** `gateway_public_cache_entries` of a gateway process. */
async function cacheEntries(origin: string): Promise<number> {
  const match = /^gateway_public_cache_entries (\d+)$/m.exec(await (await fetch(`${origin}/metrics`)).text());
  return Number(match?.[1] ?? Number.NaN);
}

function patchStory(id: string, attributes: Record<string, unknown>): Promise<Answer> {
  return api(stack.origin, 'PATCH', `/stories/${id}`, author.token, { body: { data: { type: 'story', id, attributes } } });
}

describe('public cache at the edge', () => {
  it("shows another user an author's change through another gateway process once its event arrives, and the author at once", async () => {
    const id = await publishedStory('Before');
    // Both processes serve (and may cache) the published story to the reader.
    for (const origin of [stack.origin, second.origin]) expect(ok(await api(origin, 'GET', `/stories/${id}`, reader.token)).data!.attributes.title).toBe('Before');
    // The second process now holds the story: what follows tests the invalidation, not a miss.
    expect(await cacheEntries(second.origin)).toBeGreaterThan(0);

    ok(await patchStory(id, { title: 'After' }));
    // The author's own read bypasses the cache: the change is there on the next read, on either process.
    expect(ok(await api(second.origin, 'GET', `/stories/${id}`, author.token)).data!.attributes.title).toBe('After');
    // The writing process dropped its entry with the write.
    expect(ok(await api(stack.origin, 'GET', `/stories/${id}`, reader.token)).data!.attributes.title).toBe('After');
    // The other process learns of it from stories.story.v1.
    await eventually(async () => (await api(second.origin, 'GET', `/stories/${id}`, reader.token)).body.data?.attributes.title === 'After', { timeoutMs: EVENT_WAIT_MS });
  });

  it('stops serving a story that went back to draft, on every process', async () => {
    const id = await publishedStory('Soon a draft');
    for (const origin of [stack.origin, second.origin]) ok(await api(origin, 'GET', `/stories/${id}`, reader.token));
    ok(await patchStory(id, { published: false }));
    expect((await api(stack.origin, 'GET', `/stories/${id}`, reader.token)).status).toBe(404);
    await eventually(async () => (await api(second.origin, 'GET', `/stories/${id}`, reader.token)).status === 404, { timeoutMs: EVENT_WAIT_MS });
    // The author still reads their draft (never from the shared cache).
    expect(ok(await api(second.origin, 'GET', `/stories/${id}`, author.token)).data!.attributes.published).toBe(false);
  });

  it('never gives a draft to another user, whoever read it first', async () => {
    const draft = ok(await api(stack.origin, 'POST', '/stories', author.token, { body: { data: { type: 'story', attributes: { title: 'Private draft' } } } }), 201).data!;
    for (const origin of [stack.origin, second.origin]) {
      ok(await api(origin, 'GET', `/stories/${draft.id}`, author.token));
      expect((await api(origin, 'GET', `/stories/${draft.id}`, reader.token)).status).toBe(404);
    }
  });

  it('keeps e-mail on the own record only, in either order of reads', async () => {
    for (const origin of [stack.origin, second.origin]) {
      const own = ok(await api(origin, 'GET', `/users/${author.id}`, author.token)).data!;
      expect(own.attributes.email).toEqual(expect.any(String));
      expect(ok(await api(origin, 'GET', `/users/${author.id}`, reader.token)).data!.attributes).not.toHaveProperty('email');
      expect(ok(await api(origin, 'GET', '/users/me', author.token)).data!.attributes.email).toBe(own.attributes.email);
      expect(ok(await api(origin, 'GET', `/users/${author.id}`, reader.token)).data!.attributes).not.toHaveProperty('email');
    }
  });

  it("shows another user a profile change through another process once its event arrives", async () => {
    ok(await api(second.origin, 'GET', `/users/${author.id}`, reader.token));
    ok(await api(stack.origin, 'PATCH', '/users/me', author.token, { body: { data: { type: 'user', id: author.id, attributes: { bio: 'New bio' } } } }));
    await eventually(async () => (await api(second.origin, 'GET', `/users/${author.id}`, reader.token)).body.data?.attributes.bio === 'New bio', { timeoutMs: EVENT_WAIT_MS });
  });

  it('applies include and fields to a cached story', async () => {
    const id = await publishedStory('With includes');
    ok(await api(second.origin, 'GET', `/stories/${id}`, reader.token));
    const body = ok(await api(second.origin, 'GET', `/stories/${id}?include=author&fields[story]=title,author&fields[user]=name`, reader.token));
    expect(Object.keys(body.data!.attributes)).toEqual(['title']);
    expect(body.included?.map((resource) => [resource.type, resource.id, Object.keys(resource.attributes)])).toEqual([['user', author.id, ['name']]]);
    expect(Object.keys(ok(await api(second.origin, 'GET', `/stories/${id}`, reader.token)).data!.attributes)).toContain('num_words');
  });

  it('answers GETs with a strong ETag and 304 to a matching If-None-Match, until the resource changes', async () => {
    const id = await publishedStory('Validated');
    const first = await api(stack.origin, 'GET', `/stories/${id}`, reader.token);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await api(stack.origin, 'GET', `/stories/${id}`, reader.token, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    // Another representation (a sparse fieldset) has another validator.
    expect((await api(stack.origin, 'GET', `/stories/${id}?fields[story]=title`, reader.token, { headers: { 'if-none-match': etag! } })).status).toBe(200);

    ok(await patchStory(id, { title: 'Validated again' }));
    const changed = await api(stack.origin, 'GET', `/stories/${id}`, reader.token, { headers: { 'if-none-match': etag! } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });
});

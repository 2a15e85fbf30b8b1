import { createTestUser, eventually, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components, operations } from '@inkwell/client';
import { startGatewayStack, type ExtraGateway, type GatewayStack } from './gateway.stack.js';
import { JsonApiClient, ok } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_cache';
/** The event path's bound (docs/api/foundation.md, "Caching at the edge") with room for a busy machine. */
const EVENT_WAIT_MS = 10_000;

let stack: GatewayStack;
/** A second gateway process: it learns of writes made through the first one only from the events. */
let second: ExtraGateway;
/** Typed clients (checked against the API document) of the first and the second gateway process. */
let one: JsonApiClient;
let two: JsonApiClient;
let author: TestUser;
let reader: TestUser;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  second = await stack.startGateway();
  [author, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'read_user', 'write_user'] }),
    createTestUser(stack.system, { scopes: ['read_stories', 'read_user'] }),
  ]);
  one = new JsonApiClient(`${stack.origin}/api/v1`, () => reader.token);
  two = new JsonApiClient(`${second.origin}/api/v1`, () => reader.token);
  // Each process serves its cache once its own consumer group fetches: wait for both, or the tests would only see the backends.
  for (const metricsUrl of [stack.metricsUrl, second.metricsUrl]) {
    await eventually(async () => /^gateway_public_cache_live 1$/m.test(await (await fetch(metricsUrl)).text()), { timeoutMs: 60_000, intervalMs: 200 });
  }
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

/** GET /stories/:id through `gateway` as `token`, with `query` (include, fields). */
const story = (gateway: JsonApiClient, id: string, token: string, query: NonNullable<operations['getStoriesById']['parameters']['query']> = {}) =>
  gateway.as(token).GET('/stories/{id}', { params: { path: { id }, query } });
/** GET /users/:id through `gateway` as `token`. */
const user = (gateway: JsonApiClient, id: string, token: string) => gateway.as(token).GET('/users/{id}', { params: { path: { id } } });

/** A published story of the author with one published chapter, created through the first gateway. */
async function publishedStory(title: string): Promise<string> {
  const writing = one.as(author.token);
  const created = ok(await writing.POST('/stories', { body: { data: { type: 'story', attributes: { title } } } }), 201).data;
  const path = { id: created.id };
  ok(await writing.POST('/stories/{id}/chapters', { params: { path }, body: { data: { type: 'chapter', attributes: { title: 'One', content: 'a few words', published: true } } } }), 201);
  ok(await writing.PATCH('/stories/{id}', { params: { path }, body: { data: { type: 'story', id: created.id, attributes: { published: true } } } }));
  return created.id;
}

/** `gateway_public_cache_entries` of a gateway process (its metrics URL). */
async function cacheEntries(metricsUrl: string): Promise<number> {
  const match = /^gateway_public_cache_entries (\d+)$/m.exec(await (await fetch(metricsUrl)).text());
  return Number(match?.[1] ?? Number.NaN);
}

type StoryChanges = NonNullable<components['schemas']['PatchStoriesByIdRequest']['data']['attributes']>;
const patchStory = (id: string, attributes: StoryChanges) => one.as(author.token).PATCH('/stories/{id}', { params: { path: { id } }, body: { data: { type: 'story', id, attributes } } });

/**
 * A raw GET /stories/:id with If-None-Match through the first gateway: the API document declares
 * neither that header nor the 304 answer (docs/api/foundation.md describes both), so it cannot go
 * through the typed client.
 */
const conditionalGet = (path: string, etag: string) => fetch(`${stack.origin}/api/v1${path}`, { headers: { authorization: `Bearer ${reader.token}`, 'if-none-match': etag } });

describe('public cache at the edge', () => {
  it("shows another user an author's change through another gateway process once its event arrives, and the author at once", async () => {
    const id = await publishedStory('Before');
    // Both processes serve (and may cache) the published story to the reader.
    for (const gateway of [one, two]) expect(ok(await story(gateway, id, reader.token)).data.attributes.title).toBe('Before');
    // The second process now holds the story: what follows tests the invalidation, not a miss.
    expect(await cacheEntries(second.metricsUrl)).toBeGreaterThan(0);

    ok(await patchStory(id, { title: 'After' }));
    // The author's own read bypasses the cache: the change is there on the next read, on either process.
    expect(ok(await story(two, id, author.token)).data.attributes.title).toBe('After');
    // The writing process dropped its entry with the write.
    expect(ok(await story(one, id, reader.token)).data.attributes.title).toBe('After');
    // The other process learns of it from stories.story.v1.
    await eventually(async () => (await story(two, id, reader.token)).data?.data.attributes.title === 'After', { timeoutMs: EVENT_WAIT_MS });
  });

  it('stops serving a story that went back to draft or was deleted, on every process, on the very next request', async () => {
    const id = await publishedStory('Soon a draft');
    for (const gateway of [one, two]) ok(await story(gateway, id, reader.token));
    expect(await cacheEntries(second.metricsUrl)).toBeGreaterThan(0);
    ok(await patchStory(id, { published: false }));
    // No waiting for the event: the write ended the entry's generation before it answered.
    expect((await story(one, id, reader.token)).response.status).toBe(404);
    expect((await story(two, id, reader.token)).response.status).toBe(404);
    const gone = await publishedStory('Soon deleted');
    ok(await story(two, gone, reader.token));
    expect((await one.as(author.token).DELETE('/stories/{id}', { params: { path: { id: gone } } })).response.status).toBe(204);
    expect((await story(two, gone, reader.token)).response.status).toBe(404);
    // The author still reads their draft (never from the shared cache).
    expect(ok(await story(two, id, author.token)).data.attributes.published).toBe(false);
  });

  it('never gives a draft to another user, whoever read it first', async () => {
    const draft = ok(await one.as(author.token).POST('/stories', { body: { data: { type: 'story', attributes: { title: 'Private draft' } } } }), 201).data;
    for (const gateway of [one, two]) {
      ok(await story(gateway, draft.id, author.token));
      expect((await story(gateway, draft.id, reader.token)).response.status).toBe(404);
    }
  });

  it('keeps e-mail on the own record only, in either order of reads', async () => {
    for (const gateway of [one, two]) {
      const own = ok(await user(gateway, author.id, author.token)).data;
      expect(own.attributes.email).toEqual(expect.any(String));
      expect(ok(await user(gateway, author.id, reader.token)).data.attributes).not.toHaveProperty('email');
      expect(ok(await user(gateway, 'me', author.token)).data.attributes.email).toBe(own.attributes.email);
      expect(ok(await user(gateway, author.id, reader.token)).data.attributes).not.toHaveProperty('email');
    }
  });

  it("shows another user a profile change through another process once its event arrives", async () => {
    ok(await user(two, author.id, reader.token));
    ok(await one.as(author.token).PATCH('/users/{id}', { params: { path: { id: 'me' } }, body: { data: { type: 'user', id: author.id, attributes: { bio: 'New bio' } } } }));
    await eventually(async () => (await user(two, author.id, reader.token)).data?.data.attributes.bio === 'New bio', { timeoutMs: EVENT_WAIT_MS });
  });

  it('applies include and fields to a cached story', async () => {
    const id = await publishedStory('With includes');
    ok(await story(two, id, reader.token));
    const body = ok(await story(two, id, reader.token, { include: 'author', 'fields[story]': 'title,author', 'fields[user]': 'name' }));
    expect(Object.keys(body.data.attributes)).toEqual(['title']);
    expect(body.included?.map((resource) => [resource.type, resource.id, Object.keys(resource.attributes)])).toEqual([['user', author.id, ['name']]]);
    expect(Object.keys(ok(await story(two, id, reader.token)).data.attributes)).toContain('num_words');
  });

  it('answers GETs with a strong ETag and 304 to a matching If-None-Match, until the resource changes', async () => {
    const id = await publishedStory('Validated');
    const first = await story(one, id, reader.token);
    ok(first);
    const etag = first.response.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await conditionalGet(`/stories/${id}`, etag!);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    // Another representation (a sparse fieldset) has another validator.
    expect((await conditionalGet(`/stories/${id}?fields[story]=title`, etag!)).status).toBe(200);

    ok(await patchStory(id, { title: 'Validated again' }));
    const changed = await conditionalGet(`/stories/${id}`, etag!);
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });
});

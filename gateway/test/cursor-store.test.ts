import { isAppError } from '@inkwell/errors';
import { createRedis } from '@inkwell/redis';
import { eventually } from '@inkwell/testing';
import { describe, expect, it } from 'vitest';
import { createDocumentResponder, CursorStore, parseDocumentQuery, parseListQuery } from '../src/jsonapi/index.js';
import type { ApiRequest } from '../src/routing/route.types.js';
import { CHAPTER_DOCUMENT, MESSAGE_LIST, STORY_LIST, makeChapter, makeStory, makeUser } from './fixtures/list-schemas.fixture.js';
import { useTestRedis } from './support/test-redis.js';

const testRedis = useTestRedis('cursor');
const { prefix } = testRedis;

async function reason(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error.details[0]?.reason;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('CursorStore against real Redis', () => {
  it('stores after under a 128-bit base64url id with the TTL and gives it back for the same binding, repeatedly', async () => {
    const store = new CursorStore(testRedis.redis, { ttlSeconds: 3600, keyPrefix: prefix });
    const id = await store.save('binding-a', 'opaque-after');
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const ttl = await testRedis.redis.ttl(store.key(id));
    expect(ttl).toBeGreaterThan(3590);
    expect(ttl).toBeLessThanOrEqual(3600);
    expect(await store.load(id, 'binding-a')).toBe('opaque-after');
    expect(await store.load(id, 'binding-a')).toBe('opaque-after');
  });

  it('rejects another binding, unknown and malformed ids with invalid_cursor', async () => {
    const store = new CursorStore(testRedis.redis, { ttlSeconds: 60, keyPrefix: prefix });
    const id = await store.save('binding-a', 'x');
    expect(await reason(store.load(id, 'binding-b'))).toBe('invalid_cursor');
    expect(await reason(store.load('A'.repeat(22), 'binding-a'))).toBe('invalid_cursor');
    expect(await reason(store.load('not a cursor', 'binding-a'))).toBe('invalid_cursor');
  });

  it('forgets a cursor when its TTL runs out', async () => {
    const store = new CursorStore(testRedis.redis, { ttlSeconds: 1, keyPrefix: prefix });
    const id = await store.save('binding-a', 'x');
    expect(await store.load(id, 'binding-a')).toBe('x');
    const forgotten = () => store.load(id, 'binding-a').then(() => false, () => true);
    await eventually(forgotten, { timeoutMs: 5_000, intervalMs: 100, what: 'the cursor to expire' });
    expect(await reason(store.load(id, 'binding-a'))).toBe('invalid_cursor');
  });

  it('answers 503 unavailable while Redis is unreachable', async () => {
    const down = createRedis('redis://127.0.0.1:1', { retryStrategy: () => null, enableOfflineQueue: false });
    try {
      const store = new CursorStore(down, { ttlSeconds: 60, keyPrefix: prefix });
      await expect(store.save('b', 'x')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      down.disconnect();
    }
  });
});

describe('DocumentResponder with real Redis', () => {
  const request = (query: string, userId = '1'): ApiRequest => ({
    method: 'GET',
    params: {},
    query: new URLSearchParams(query),
    body: undefined,
    caller: { requestId: 'r', userId, scopes: [] },
    selfLink: `https://api.example/api/v1/stories${query === '' ? '' : `?${query}`}`,
  });

  it('pages with cursors bound to the query and caller, and builds the collection document', async () => {
    const store = new CursorStore(testRedis.redis, { ttlSeconds: 60, keyPrefix: prefix });
    const documents = createDocumentResponder({ cursors: store, loaders: { user: async (ids) => ids.map(makeUser) } });

    const first = request('query=space%20opera&include=author&page[size]=1');
    const firstQuery = parseListQuery(STORY_LIST, first.query);
    const start = await documents.cursorStart(first, firstQuery);
    expect(start.after).toBe('');
    const page1 = (await documents.cursorPage(first, firstQuery, start, [makeStory('9', '4')], 'after-9'))!;
    const document1 = page1.document as unknown as { data: unknown[]; included: { type: string; id: string }[]; links: { next: string } };
    expect(document1.included).toEqual([makeUser('4')]);
    expect(document1.links.next).toMatch(/^https:\/\/api\.example\/api\/v1\/stories\?query=space%20opera&include=author&page\[size\]=1&page%5Bcursor%5D=[A-Za-z0-9_-]{22}$/);

    const nextUrl = new URL(document1.links.next);
    const second = { ...request(nextUrl.search.slice(1)), selfLink: document1.links.next };
    const secondQuery = parseListQuery(STORY_LIST, second.query);
    const resumed = await documents.cursorStart(second, secondQuery);
    expect(resumed.after).toBe('after-9');
    const last = (await documents.cursorPage(second, secondQuery, resumed, [makeStory('8', '4')], ''))!;
    expect(last.document).not.toHaveProperty('links.next');

    const cursor = nextUrl.searchParams.get('page[cursor]');
    const other = request(`query=space%20operas&page[cursor]=${cursor}`);
    expect(await reason(documents.cursorStart(other, parseListQuery(STORY_LIST, other.query)))).toBe('invalid_cursor');
    const otherCaller = request(`query=space%20opera&page[cursor]=${cursor}`, '2');
    expect(await reason(documents.cursorStart(otherCaller, parseListQuery(STORY_LIST, otherCaller.query)))).toBe('invalid_cursor');
    const resized = request(`query=space%20opera&page[size]=50&fields[story]=title&page[cursor]=${cursor}`);
    expect((await documents.cursorStart(resized, parseListQuery(STORY_LIST, resized.query))).after).toBe('after-9');
  });

  it('answers numbered pages with meta.total and single resources with includes, fields, status, headers and self', async () => {
    const store = new CursorStore(testRedis.redis, { ttlSeconds: 60, keyPrefix: prefix });
    const documents = createDocumentResponder({ cursors: store, loaders: { story: async (ids) => ids.map((id) => makeStory(id, '4')), user: async (ids) => ids.map(makeUser) } });

    const pageRequest = { ...request('page[number]=2&page[size]=2'), selfLink: 'https://api.example/api/v1/users/1/private-messages?page[number]=2&page[size]=2' };
    const page = await documents.numberedPage(pageRequest, parseListQuery(MESSAGE_LIST, pageRequest.query), [], 5);
    expect(page.document).toMatchObject({ data: [], meta: { total: 5 }, links: { prev: expect.stringContaining('page%5Bnumber%5D=1'), next: expect.stringContaining('page%5Bnumber%5D=3'), last: expect.stringContaining('page%5Bnumber%5D=3') } });

    const chapterRequest = { ...request('include=story.author&fields[chapter]=content'), selfLink: 'https://api.example/api/v1/stories/9/chapters' };
    const created = await documents.resource(chapterRequest, parseDocumentQuery(CHAPTER_DOCUMENT, chapterRequest.query), makeChapter('5', '9', 'text'), {
      status: 201,
      headers: { Location: 'https://api.example/api/v1/chapters/5' },
      self: 'https://api.example/api/v1/chapters/5',
    });
    expect(created.status).toBe(201);
    expect(created.headers).toEqual({ Location: 'https://api.example/api/v1/chapters/5' });
    expect(created.document).toEqual({
      data: { id: '5', type: 'chapter', attributes: { content: 'text' }, links: { self: 'https://api.example/api/v1/chapters/5' } },
      included: [makeStory('9', '4'), makeUser('4')],
      links: { self: 'https://api.example/api/v1/chapters/5' },
    });
  });
});

import { createTestUser, eventuallyValue, type TestUser } from '@inkwell/testing';
import { parseAtomFeed } from 'feedsmith';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';

const DATABASE = 'inkwell_test_gateway_feeds';
/** Events reach the search index, the shelf copy and the notifications inbox within this, on a busy machine. */
const EVENT_WAIT_MS = 30_000;
/** High enough for every request of this file from one address; the header proves feeds are counted. */
const ANONYMOUS_LIMIT = 1_000;

let stack: GatewayStack;
let author: TestUser;
let reader: TestUser;

/** A feed as the parser reads it. */
const parseFeed = (xml: string) => parseAtomFeed(xml);
type ParsedFeed = ReturnType<typeof parseFeed>;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE, { RATE_LIMIT_ANONYMOUS_MAX: String(ANONYMOUS_LIMIT) });
  [author, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'write_blog_posts', 'write_bookshelves', 'read_bookshelves', 'read_notifications'] }),
    createTestUser(stack.system, { scopes: ['write_user', 'write_bookshelves', 'read_bookshelves'] }),
  ]);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

/** A JSON:API call as `user`; the answer's document (undefined for 204). */
async function api(user: TestUser, method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200): Promise<{ data: { id: string; attributes: Record<string, unknown> } }> {
  const response = await fetch(`${stack.origin}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${user.token}`, ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBe(status);
  return text === '' ? (undefined as never) : JSON.parse(text);
}

/** A story of the author with chapters (each published or a draft), published when `publish`. */
async function story(title: string, chapters: readonly { title: string; published: boolean }[], options: { publish?: boolean; tags?: readonly string[] } = {}): Promise<{ id: string; chapterIds: string[] }> {
  const relationships = options.tags === undefined ? {} : { relationships: { tags: { data: options.tags.map((id) => ({ type: 'tag', id })) } } };
  const { id } = (await api(author, 'POST', '/stories', { data: { type: 'story', attributes: { title, short_description: `About ${title}` }, ...relationships } })).data;
  const chapterIds: string[] = [];
  for (const chapter of chapters) {
    chapterIds.push((await api(author, 'POST', `/stories/${id}/chapters`, { data: { type: 'chapter', attributes: { ...chapter, content: 'a few words' } } })).data.id);
  }
  if (options.publish !== false) await api(author, 'PATCH', `/stories/${id}`, { data: { type: 'story', id, attributes: { published: true } } });
  return { id, chapterIds };
}

/** GET of a feed path without any token, with `headers`. */
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.origin}${path}`, { headers });

/** The feed at `path`: a 200 Atom answer, parsed by a real feed parser and checked for what RFC 4287 requires. */
async function feed(path: string): Promise<{ parsed: ParsedFeed; response: Response; xml: string }> {
  const response = await get(path);
  const xml = await response.text();
  expect(response.status, `${path}: ${xml}`).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
  const parsed = parseFeed(xml);
  expectRequiredElements(parsed, `${stack.origin}${path}`);
  return { parsed, response, xml };
}

/**
 * RFC 4287's required elements: feed id, title, updated, an author (on the feed, or on every
 * entry), link rel=self (to the feed's URL); each entry id, title, updated and link rel=alternate
 * (the resource's API URL). At most 50 entries.
 */
function expectRequiredElements(parsed: ParsedFeed, self: string): void {
  expect(parsed.id).toMatch(/^(https?|tag):/);
  expect(parsed.title?.value).toBeTruthy();
  expect(Number.isNaN(Date.parse(String(parsed.updated)))).toBe(false);
  expect(parsed.links).toContainEqual(expect.objectContaining({ rel: 'self', href: self }));
  const entries = parsed.entries ?? [];
  expect(entries.length).toBeLessThanOrEqual(50);
  if ((parsed.authors ?? []).length === 0) for (const entry of entries) expect(entry.authors?.[0]?.name).toBeTruthy();
  else expect(parsed.authors?.[0]?.name).toBeTruthy();
  for (const entry of entries) {
    expect(entry.id).toMatch(/^(https?|tag):/);
    expect(entry.title?.value).toBeTruthy();
    expect(Number.isNaN(Date.parse(String(entry.updated)))).toBe(false);
    expect(entry.links).toContainEqual(expect.objectContaining({ rel: 'alternate', href: expect.stringMatching(`^${stack.origin}/api/v1/`) }));
  }
}

const entryIds = (parsed: ParsedFeed) => (parsed.entries ?? []).map((entry) => entry.id);
const apiUrl = (path: string) => `${stack.origin}/api/v1${path}`;

describe('story feed', () => {
  it("lists a published story's published chapters, newest first, without its drafts", async () => {
    const { id, chapterIds } = await story('Feed story', [
      { title: 'First', published: true },
      { title: 'Draft', published: false },
      { title: 'Third', published: true },
    ]);
    const { parsed, response } = await feed(`/feeds/stories/${id}.atom`);
    expect(parsed.title?.value).toBe('Feed story');
    expect(parsed.authors?.[0]?.name).toBe(author.name);
    expect(entryIds(parsed)).toEqual([apiUrl(`/chapters/${chapterIds[2]}`), apiUrl(`/chapters/${chapterIds[0]}`)]);
    expect(entryIds(parsed)).not.toContain(apiUrl(`/chapters/${chapterIds[1]}`));
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    // Counted like any request without a token: on the address's window.
    expect(response.headers.get('ratelimit-limit')).toBe(String(ANONYMOUS_LIMIT));
  });

  it('answers 304 to a matching ETag or a Last-Modified that still holds, and the feed again to a stale ETag', async () => {
    const { id } = await story('Validated', [{ title: 'One', published: true }]);
    const path = `/feeds/stories/${id}.atom`;
    const { response } = await feed(path);
    const etag = response.headers.get('etag') as string;
    const lastModified = response.headers.get('last-modified') as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(Number.isNaN(Date.parse(lastModified))).toBe(false);

    const again = await get(path, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    expect((await get(path, { 'if-modified-since': lastModified })).status).toBe(304);
    const stale = await get(path, { 'if-none-match': '"stale"', 'if-modified-since': lastModified });
    expect(stale.status).toBe(200);
    const head = await fetch(`${stack.origin}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    expect(await head.text()).toBe('');
  });

  it('is 404 for a draft story, a story that does not exist and a path that names no feed, without XML', async () => {
    const { id } = await story('Never published', [{ title: 'Draft', published: false }], { publish: false });
    for (const path of [`/feeds/stories/${id}.atom`, '/feeds/stories/999999999.atom', '/feeds/stories/abc.atom', '/feeds/stories/1', '/feeds/comments/1.atom']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(await response.text(), path).not.toContain('<feed');
    }
    expect((await fetch(`${stack.origin}/feeds/stories/${id}.atom`, { method: 'POST' })).status).toBe(405);
  });
});

describe('user feed', () => {
  it("merges an author's published stories, published chapters and blog posts, newest first, without drafts", async () => {
    const published = await story('User feed story', [
      { title: 'Out', published: true },
      { title: 'Not yet', published: false },
    ]);
    const draft = await story('User feed draft', [{ title: 'Hidden', published: true }], { publish: false });
    const post = (await api(author, 'POST', '/blog-posts', { data: { type: 'blog_post', attributes: { title: 'A post', content: 'Words.' } } })).data.id;

    const { parsed } = await feed(`/feeds/users/${author.id}.atom`);
    const ids = entryIds(parsed);
    expect(ids).toEqual(expect.arrayContaining([apiUrl(`/stories/${published.id}`), apiUrl(`/chapters/${published.chapterIds[0]}`), apiUrl(`/blog-posts/${post}`)]));
    for (const hidden of [apiUrl(`/chapters/${published.chapterIds[1]}`), apiUrl(`/stories/${draft.id}`), apiUrl(`/chapters/${draft.chapterIds[0]}`)]) expect(ids).not.toContain(hidden);
    // The blog post came last, so it is first.
    expect(ids[0]).toBe(apiUrl(`/blog-posts/${post}`));
    const times = (parsed.entries ?? []).map((entry) => Date.parse(String(entry.published ?? entry.updated)));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect((await get('/feeds/users/999999999.atom')).status).toBe(404);
  });
});

describe('tag feed', () => {
  it("lists a tag's newly published stories once the search index has them, each with its author", async () => {
    const tagged = await story('Tagged story', [{ title: 'One', published: true }], { tags: ['g:1'] });
    const parsed = await eventuallyValue(
      async () => (await feed('/feeds/tags/g:1.atom')).parsed,
      (candidate) => entryIds(candidate)[0] === apiUrl(`/stories/${tagged.id}`),
      { timeoutMs: EVENT_WAIT_MS, intervalMs: 250, what: 'the tagged story at the top of the tag feed' },
    );
    expect(parsed.entries?.[0]?.authors?.[0]?.name).toBe(author.name);
    expect((await get('/feeds/tags/g:999999.atom')).status).toBe(404);
  });
});

describe('bookshelf feed', () => {
  it("lists a public shelf's stories by last update and is 404 for a private shelf", async () => {
    const older = await story('Shelved older', [{ title: 'One', published: true }]);
    const newer = await story('Shelved newer', [{ title: 'One', published: true }]);
    const shelf = async (privacy: string) => (await api(reader, 'POST', `/users/${reader.id}/bookshelves`, { data: { type: 'bookshelf', attributes: { name: `A ${privacy} shelf`, privacy } } })).data.id;
    const [publicShelf, privateShelf] = [await shelf('public'), await shelf('private')];
    for (const shelfId of [publicShelf, privateShelf]) {
      for (const storyId of [newer.id, older.id]) {
        await api(reader, 'POST', `/bookshelves/${shelfId}/items`, { data: { type: 'bookshelf_item', relationships: { story: { data: { type: 'story', id: storyId } } } } });
      }
    }
    // A new chapter makes the older story the most recently updated one.
    await api(author, 'POST', `/stories/${older.id}/chapters`, { data: { type: 'chapter', attributes: { title: 'Two', content: 'more words', published: true } } });

    const parsed = await eventuallyValue(
      async () => (await feed(`/feeds/bookshelves/${publicShelf}.atom`)).parsed,
      (candidate) => entryIds(candidate).join() === [apiUrl(`/stories/${older.id}`), apiUrl(`/stories/${newer.id}`)].join(),
      { timeoutMs: EVENT_WAIT_MS, intervalMs: 250, what: 'both stories on the shelf feed, the updated one first' },
    );
    expect(parsed.title?.value).toBe('A public shelf');
    expect(parsed.authors?.[0]?.name).toBe(reader.name);
    const hidden = await get(`/feeds/bookshelves/${privateShelf}.atom`);
    expect(hidden.status).toBe(404);
    expect(await hidden.text()).not.toContain('Shelved');
  });
});

describe('notifications feed', () => {
  it("lists the token owner's notifications privately, and is 404 once the token is revoked", async () => {
    const created = (await api(author, 'POST', '/users/me/notifications/feed-token', { data: { type: 'notification_feed' } })).data;
    const url = new URL(String(created.attributes.url));
    expect(url.pathname).toMatch(/^\/feeds\/notifications\/[A-Za-z0-9_-]+\.atom$/);
    await api(reader, 'POST', `/users/${reader.id}/following`, { data: { type: 'follow', relationships: { followed: { data: { type: 'user', id: author.id } } } } });

    const parsed = await eventuallyValue(
      async () => (await feed(url.pathname)).parsed,
      (candidate) => (candidate.entries ?? []).some((entry) => entry.categories?.some((category) => category.term === 'new_follower')),
      { timeoutMs: EVENT_WAIT_MS, intervalMs: 250, what: 'the new follower in the notifications feed' },
    );
    const followed = (parsed.entries ?? []).find((entry) => entry.categories?.some((category) => category.term === 'new_follower'));
    expect(followed?.authors?.[0]?.name).toBe(reader.name);
    expect(followed?.links).toContainEqual(expect.objectContaining({ rel: 'alternate', href: apiUrl(`/users/${reader.id}`) }));
    const answer = await get(url.pathname);
    expect(answer.headers.get('cache-control')).toBe('private, no-store');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');

    await api(author, 'DELETE', '/users/me/notifications/feed-token', undefined, 204);
    expect((await get(url.pathname)).status).toBe(404);
    expect((await get('/feeds/notifications/not-a-live-token.atom')).status).toBe(404);
  });
});

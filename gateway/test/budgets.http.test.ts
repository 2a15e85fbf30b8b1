import { createTestUser, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { eventually, expectError, JsonApiClient, type Answer, type Resource } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_budgets';
/** Just under the 1 MiB a description may hold: its HTML makes each story about 2 MB. */
const LONG_TEXT = 'word '.repeat(200_000);
const STORIES = 12;

let stack: GatewayStack;
let client: JsonApiClient;
/** Writes twelve stories with the longest descriptions, and shelves with the longest descriptions. */
let author: TestUser;
/** Another ordinary user: reads what the author made. */
let reader: TestUser;
let bigStories: string[];

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  [author, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'read_bookshelves', 'write_bookshelves'] }),
    createTestUser(stack.system, { scopes: ['read_stories', 'read_bookshelves', 'write_bookshelves'] }),
  ]);
  bigStories = [];
  for (let i = 0; i < STORIES; i++) bigStories.push(await publishStory(author, `Long ${i}`, LONG_TEXT));
}, 600_000);

afterAll(async () => {
  await stack?.stop();
});

/** `call`, asserting the status (with the body in the message when it differs). */
async function expectStatus(status: number, answer: Promise<Answer>): Promise<Answer> {
  const result = await answer;
  expect(result.status, JSON.stringify(result.body).slice(0, 500)).toBe(status);
  return result;
}

async function publishStory(user: TestUser, title: string, description = ''): Promise<string> {
  const story = await expectStatus(201, client.call('POST', '/stories', { token: user.token, body: { data: { type: 'story', attributes: { title, description } } } }));
  const id = story.body.data!.id;
  await expectStatus(201, client.call('POST', `/stories/${id}/chapters`, { token: user.token, body: { data: { type: 'chapter', attributes: { title: 'One', content: 'a few words', published: true } } } }));
  await expectStatus(200, client.call('PATCH', `/stories/${id}`, { token: user.token, body: { data: { type: 'story', id, attributes: { published: true } } } }));
  return id;
}

async function createShelf(user: TestUser, attributes: Record<string, unknown>): Promise<string> {
  return (await expectStatus(201, client.call('POST', '/users/me/bookshelves', { token: user.token, body: { data: { type: 'bookshelf', attributes } } }))).body.data!.id;
}

/** Every page of a list from `path`, following links.next; each page must answer 200. */
async function walk(path: string, token: string): Promise<{ pages: Answer[]; items: Resource[]; bytes: number[] }> {
  const pages: Answer[] = [];
  const bytes: number[] = [];
  let next: string | undefined = path;
  while (next !== undefined) {
    const url = next.startsWith('http') ? next : `${stack.system.apiUrl}${next}`;
    const response = await fetch(url, { headers: client.auth(token) });
    const text = await response.text();
    expect(response.status, text.slice(0, 500)).toBe(200);
    const body = JSON.parse(text) as Answer['body'];
    pages.push({ status: response.status, headers: response.headers, body });
    bytes.push(Buffer.byteLength(text));
    next = body.links?.next;
  }
  return { pages, bytes, items: pages.flatMap((page) => (page.body.data as unknown as Resource[]) ?? []) };
}

describe('byte budgets (docs/api/foundation.md, "Byte budgets")', () => {
  it('lists one author\'s twelve stories of 1 MiB descriptions page by page: never an error, every story reachable', async () => {
    const path = `/stories?filter[author]=${author.id}&page[size]=20`;
    await eventually(() => client.call('GET', `/stories?filter[author]=${author.id}&page[size]=1`), (answer) => answer.body.meta?.total === STORIES, 'the index to hold the twelve stories', 60_000);
    const { pages, items, bytes } = await walk(path, reader.token);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.every((page) => (page.body.data as unknown as Resource[]).length < STORIES)).toBe(true);
    expect(new Set(items.map((story) => story.id))).toEqual(new Set(bigStories));
    expect(items).toHaveLength(STORIES);
    // One ~2 MB story per page at most, never the twelve at once.
    expect(Math.max(...bytes)).toBeLessThan(5 * 1024 * 1024);
    // The front page, where they are the newest, answers too.
    await expectStatus(200, client.call('GET', '/stories?page[size]=100'));
    // Indexing twelve 1 MiB stories may take the whole minute the wait above allows on a busy machine.
  }, 90_000);

  it("pages chapters with 1 MiB authors' notes, and includes every one of them in a story, within the budgets", async () => {
    const story = (await expectStatus(201, client.call('POST', '/stories', { token: author.token, body: { data: { type: 'story', attributes: { title: 'Long notes' } } } }))).body.data!.id;
    const chapters: string[] = [];
    for (let i = 0; i < 3; i++) {
      const body = { data: { type: 'chapter', attributes: { title: `Noted ${i}`, content: 'A few words.', authors_note: LONG_TEXT, published: true } } };
      chapters.push((await expectStatus(201, client.call('POST', `/stories/${story}/chapters`, { token: author.token, body }))).body.data!.id);
    }
    await expectStatus(200, client.call('PATCH', `/stories/${story}`, { token: author.token, body: { data: { type: 'story', id: story, attributes: { published: true } } } }));
    const { pages, items } = await walk(`/stories/${story}/chapters?page[size]=100`, reader.token);
    expect(pages.length).toBe(3);
    expect(items.map((chapter) => chapter.id)).toEqual(chapters);
    // Two notes fill a batch answer: the gateway asks again for the chapter it deferred.
    const withChapters = await expectStatus(200, client.call('GET', `/stories/${story}?include=chapters`, { token: reader.token }));
    expect((withChapters.body.included ?? []).map((chapter) => chapter.id)).toEqual(chapters);
  });

  it("pages a user's shelves of 1 MiB descriptions within the budget", async () => {
    const shelves = [];
    for (let i = 0; i < 3; i++) shelves.push(await createShelf(author, { name: `Shelf ${i}`, description: LONG_TEXT, privacy: 'public' }));
    const { pages, items } = await walk(`/users/${author.id}/bookshelves?page[size]=100`, reader.token);
    expect(pages.length).toBe(3);
    expect(items.map((shelf) => shelf.id)).toEqual(shelves);
  });

  // About 25 MB of documents through every layer: beside other test files on two cores it can take longer than the default 30 s.
  it('keeps a document with large included stories within its budget, every item and story reachable', { timeout: 120_000 }, async () => {
    const shelf = await createShelf(reader, { name: 'Long reads', privacy: 'public' });
    for (const story of bigStories) {
      await expectStatus(201, client.call('POST', `/bookshelves/${shelf}/items`, { token: reader.token, body: { data: { type: 'bookshelf_item', relationships: { story: { data: { type: 'story', id: story } } } } } }));
    }
    const { pages, items, bytes } = await walk(`/bookshelves/${shelf}/items?include=story&page[size]=100`, reader.token);
    expect(items).toHaveLength(STORIES);
    expect(pages.length).toBeGreaterThan(1);
    const included = new Set(pages.flatMap((page) => (page.body.included ?? []).map((resource) => resource.id)));
    expect(included).toEqual(new Set(bigStories));
    // 4 MiB of budget, and the one item a page always carries with its ~2 MB story.
    expect(Math.max(...bytes)).toBeLessThan(7 * 1024 * 1024);
  });
});

describe('error answers and idempotency records stay small', () => {
  it('lists 20 errors and one counting the rest for 20,000 unknown attributes, and replays the same answer', async () => {
    const attributes = Object.fromEntries([['title', 'Many mistakes'], ...Array.from({ length: 20_000 }, (_, i) => [`unknown_${i}`, 1])]);
    const headers = { 'Idempotency-Key': `errors-${author.id}` };
    const first = await client.call('POST', '/stories', { token: author.token, headers, body: { data: { type: 'story', attributes } } });
    expect(first.status).toBe(422);
    expect(first.body.errors).toHaveLength(21);
    expect(first.body.errors![20]!.detail).toContain('19980 more errors');
    expect(JSON.stringify(first.body).length).toBeLessThan(20_000);
    const again = await client.call('POST', '/stories', { token: author.token, headers, body: { data: { type: 'story', attributes } } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('replays a large created story as its identifier and digest', async () => {
    const headers = { 'Idempotency-Key': `large-${author.id}` };
    const body = { data: { type: 'story', attributes: { title: 'Long once', description: LONG_TEXT } } };
    const first = await expectStatus(201, client.call('POST', '/stories', { token: author.token, headers, body }));
    const again = await expectStatus(201, client.call('POST', '/stories', { token: author.token, headers, body }));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.body).toEqual({ data: { type: 'story', id: first.body.data!.id }, links: { self: first.headers.get('location') }, meta: { body_omitted: true, body_sha256: expect.any(String) } });
  });
});

describe('privacy at once (docs/api/stories.md, "Bookshelves in story lists")', () => {
  it('stops listing a shelf made private, or deleted, for others on the very next request', async () => {
    const story = await publishStory(author, 'Shelved');
    const listed = async (shelf: string) => ((await expectStatus(200, client.call('GET', `/stories?filter[bookshelf]=${shelf}`, { token: reader.token }))).body.data as unknown as Resource[]).map((item) => item.id);
    const shelves: string[] = [];
    for (const name of ['Soon private', 'Soon gone']) {
      const shelf = await createShelf(author, { name, privacy: 'public' });
      await expectStatus(201, client.call('POST', `/bookshelves/${shelf}/items`, { token: author.token, body: { data: { type: 'bookshelf_item', relationships: { story: { data: { type: 'story', id: story } } } } } }));
      await eventually(() => listed(shelf), (ids) => ids.includes(story), 'the stories service to hear of the shelf', 30_000);
      shelves.push(shelf);
    }
    const [hidden, deleted] = shelves as [string, string];
    await expectStatus(200, client.call('PATCH', `/bookshelves/${hidden}`, { token: author.token, body: { data: { type: 'bookshelf', id: hidden, attributes: { privacy: 'private' } } } }));
    const refused = async (shelf: string) => expectError(await client.call('GET', `/stories?filter[bookshelf]=${shelf}`, { token: reader.token }), 404, 'not_found', { parameter: 'filter[bookshelf]' });
    await refused(hidden);
    await expectStatus(204, client.call('DELETE', `/bookshelves/${deleted}`, { token: author.token }));
    await refused(deleted);
  });
});

import type { components, operations } from '@inkwell/client';
import { createAppToken, createTestUser, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { eventually, expectError, follow, JsonApiClient, ok, walkPages } from './support/json-api-client.js';

/**
 * Sorting and filtering stories by their last update (docs/api/updates.md, "Sorting and filtering
 * by update"): `sort=date_updated` on GET /stories (search index) and GET /users/:id/stories and
 * shelf lists (database), `filter[date_updated]` on GET /stories with every other filter.
 */

const DATABASE = 'inkwell_test_gateway_story_updates';
/** A search word that appears nowhere but in this file's stories. */
const TERM = 'plovertide';

let stack: GatewayStack;
let client: JsonApiClient;
/** Writes the stories and reads their own drafts. */
let writer: TestUser;
/** Keeps a private shelf. */
let owner: TestUser;
/** No scopes at all. */
let reader: TestUser;
let appToken: string;
let genre: string;

type Story = components['schemas']['StoryResource'];
type StoryList = NonNullable<operations['getStories']['parameters']['query']>;
type UserStoryList = NonNullable<operations['getUsersByIdStories']['parameters']['query']>;

/** The writer's published stories, in publication order. */
const published: Story[] = [];
/** The writer's stories as the database has them now (GET /users/me/stories), drafts included. */
let current: Story[] = [];
/** A draft with a published chapter (it has a date_updated, and is never on GET /stories). */
let updatedDraft: Story;
/** A draft without a published chapter: no date_updated. */
let neverUpdated: Story;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  [writer, owner, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system, { scopes: ['read_bookshelves', 'write_bookshelves'] }),
    createTestUser(stack.system),
  ]);
  appToken = (await createAppToken(stack.system)).token;
  genre = ok(await client.as().GET('/tags', { params: { query: { 'filter[kind]': 'genre', 'page[size]': 1 } } })).data[0]!.id;

  for (let i = 0; i < 6; i++) published.push(await publish(`Tale ${i}${i % 2 === 0 ? ` ${TERM}` : ''}`, i % 3 === 0 ? [genre] : []));
  // Later chapters, in another order than publication: -date_updated is 4, 0, 2, then 5, 3, 1.
  for (const index of [2, 0, 4]) await addChapter(published[index]!.id, true);
  updatedDraft = await createStory('Draft with a chapter');
  await addChapter(updatedDraft.id, true);
  neverUpdated = await createStory('Draft without a chapter');
  await addChapter(neverUpdated.id, false);
  current = await ownStories({ sort: 'date_published' });
  await indexCaughtUp();
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

const api = (token?: string | null) => client.as(token);
/** A raw GET as the reader: for parameters the API document does not describe, sent on purpose. */
const raw = (path: string) => client.call('GET', path, { token: reader.token });

async function createStory(title: string, tags: string[] = []): Promise<Story> {
  const relationships = { tags: { data: tags.map((id) => ({ type: 'tag' as const, id })) } };
  return ok(await api(writer.token).POST('/stories', { body: { data: { type: 'story', attributes: { title }, relationships } } }), 201).data;
}

async function addChapter(storyId: string, isPublished: boolean): Promise<void> {
  const body = { data: { type: 'chapter' as const, attributes: { title: 'Next', content: 'some more words', published: isPublished } } };
  ok(await api(writer.token).POST('/stories/{id}/chapters', { params: { path: { id: storyId } }, body }), 201);
}

/** A story with one published chapter, published. */
async function publish(title: string, tags: string[]): Promise<Story> {
  const story = await createStory(title, tags);
  await addChapter(story.id, true);
  const body = { data: { type: 'story' as const, id: story.id, attributes: { published: true } } };
  return ok(await api(writer.token).PATCH('/stories/{id}', { params: { path: { id: story.id } }, body })).data;
}

/** Every page of GET /stories (restricted to the writer's stories) with `query`, as `token`. */
const listed = (query: StoryList, token?: string): Promise<Story[]> =>
  walkPages((next) => api(token).GET('/stories', { params: { query: { 'filter[author]': writer.id, ...query } }, ...next }));
/** Every page of the writer's own GET /users/me/stories (drafts included). */
const ownStories = (query: UserStoryList): Promise<Story[]> =>
  walkPages((next) => api(writer.token).GET('/users/{id}/stories', { params: { path: { id: 'me' }, query: { 'page[size]': 100, ...query } }, ...next }));
const idsOf = (stories: readonly { id: string }[]): string[] => stories.map((story) => story.id);
const byId = (id: string): Story => current.find((story) => story.id === id)!;
const updatedAt = (story: Story): number | null => (story.attributes.date_updated ? Date.parse(story.attributes.date_updated) : null);

/** `stories` in the order of date_updated (stories without one last both ways), ties by id in the same direction. */
function byUpdate(stories: readonly Story[], descending: boolean): string[] {
  const sign = descending ? -1 : 1;
  return [...stories]
    .sort((a, b) => {
      const x = updatedAt(a);
      const y = updatedAt(b);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) return sign * (x - y);
      return sign * (BigInt(a.id) < BigInt(b.id) ? -1 : 1);
    })
    .map((story) => story.id);
}

/** Waits until GET /stories (the search index, fed by events) holds every story's last update. */
async function indexCaughtUp(): Promise<void> {
  const expected = byUpdate(current.filter((story) => story.attributes.published), true);
  await eventually(() => listed({ sort: '-date_updated', 'page[size]': 100, 'fields[story]': 'date_updated' }).then(idsOf), (ids) => JSON.stringify(ids) === JSON.stringify(expected), 'the index to hold the updates');
}

describe('sort=date_updated', () => {
  it('orders GET /stories by the last chapter published, both ways, ties by id, across pages of any size', async () => {
    const stories = current.filter((story) => story.attributes.published);
    const newest = byUpdate(stories, true);
    expect(newest.slice(0, 3)).toEqual([published[4]!.id, published[0]!.id, published[2]!.id]);
    expect(newest).not.toEqual(idsOf([...published].reverse()));
    for (const size of [1, 2, 4]) {
      expect(idsOf(await listed({ sort: '-date_updated', 'page[size]': size })), `-date_updated, pages of ${size}`).toEqual(newest);
      expect(idsOf(await listed({ sort: 'date_updated', 'page[size]': size }, appToken)), `date_updated, pages of ${size}`).toEqual(byUpdate(stories, false));
    }
  });

  it('orders GET /users/:id/stories the same way, the story never updated last in both directions', async () => {
    expect(updatedAt(byId(neverUpdated.id))).toBeNull();
    expect(updatedAt(byId(updatedDraft.id))).not.toBeNull();
    for (const descending of [true, false]) {
      const sort = descending ? '-date_updated' : 'date_updated';
      const own = await walkPages((next) => api(writer.token).GET('/users/{id}/stories', { params: { path: { id: 'me' }, query: { sort, 'page[size]': 2 } }, ...next }));
      expect(idsOf(own), sort).toEqual(byUpdate(current, descending));
      expect(own.at(-1)!.id).toBe(neverUpdated.id);
      const theirs = await walkPages((next) => api().GET('/users/{id}/stories', { params: { path: { id: writer.id }, query: { sort, 'page[size]': 3 } }, ...next }));
      expect(idsOf(theirs), `${sort} as another user`).toEqual(byUpdate(current.filter((story) => story.attributes.published), descending));
    }
  });

  it('binds a cursor to the direction of the sort', async () => {
    const first = ok(await api().GET('/stories', { params: { query: { 'filter[author]': writer.id, sort: '-date_updated', 'page[size]': 2 } } }));
    const next = first.links.next!;
    const query: StoryList = { 'filter[author]': writer.id, sort: 'date_updated', 'page[size]': 2 };
    expectError(await api().GET('/stories', { params: { query }, ...follow(next.replace('sort=-date_updated', 'sort=date_updated')) }), 400, 'invalid_cursor', { parameter: 'page[cursor]' });
  });
});

describe('filter[date_updated]', () => {
  const stories = () => current.filter((story) => story.attributes.published);
  const within = (min: number, max: number) => (story: Story) => updatedAt(story)! >= min && updatedAt(story)! <= max;

  it('keeps the stories updated within an inclusive range of instants, whole UTC days or open sides', async () => {
    const newest = byUpdate(stories(), true).map(byId);
    const [a, b] = [updatedAt(newest[1]!)!, updatedAt(newest[3]!)!].sort((x, y) => x - y) as [number, number];
    const iso = (ms: number) => new Date(ms).toISOString();
    const updated = async (range: string) => idsOf(await listed({ 'filter[date_updated]': range, sort: '-date_updated', 'page[size]': 2 }));
    expect(await updated(`${iso(a)},${iso(b)}`)).toEqual(byUpdate(stories().filter(within(a, b)), true));
    expect(await updated(`${iso(b)},`)).toEqual(byUpdate(stories().filter(within(b, Infinity)), true));
    expect(await updated(`,${iso(a)}`)).toEqual(byUpdate(stories().filter(within(-Infinity, a)), true));
    // An instant with another zone is the same instant.
    const offset = new Date(b + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await updated(`${offset},${offset}`)).toEqual(byUpdate(stories().filter(within(b, b)), true));
    const today = iso(a).slice(0, 10);
    const day = Date.parse(`${today}T00:00:00Z`);
    expect(await updated(today)).toEqual(byUpdate(stories().filter(within(day, day + 86_400_000 - 1)), true));
    expect(await updated(`${iso(day + 86_400_000).slice(0, 10)},`)).toEqual(byUpdate(stories().filter(within(day + 86_400_000, Infinity)), true));
  });

  it('combines with the other filters, query, another sort and facets', async () => {
    const since = updatedAt(byId(published[0]!.id))!;
    const range = `${new Date(since).toISOString()},`;
    const recent = stories().filter(within(since, Infinity));
    expect(recent.length).toBeGreaterThan(1);
    const query: StoryList = { 'filter[date_updated]': range, query: TERM, sort: 'date_published', facets: 'tags', 'page[size]': 100 };
    const body = ok(await api().GET('/stories', { params: { query: { 'filter[author]': writer.id, ...query } } }));
    const matching = recent.filter((story) => story.attributes.title!.includes(TERM));
    expect(idsOf(body.data)).toEqual(idsOf([...matching].sort((x, y) => Date.parse(x.attributes.date_published!) - Date.parse(y.attributes.date_published!))));
    expect(body.meta).toMatchObject({ total: matching.length, total_is_lower_bound: false });
    const tagged = matching.filter((story) => (story.relationships?.tags?.data ?? []).some((tag) => tag.id === genre)).length;
    expect((body.meta as { facets: { tags: Record<string, number> } }).facets.tags).toEqual(tagged > 0 ? { [genre]: tagged } : {});
    const published0 = Date.parse(published[0]!.attributes.date_published!);
    const expected = byUpdate(recent.filter((story) => Date.parse(story.attributes.date_published!) >= published0 && (story.relationships?.tags?.data ?? []).some((tag) => tag.id === genre)), true);
    expect(expected).toEqual([published[0]!.id]);
    expect(idsOf(await listed({ 'filter[date_updated]': range, 'filter[date_published]': `${new Date(published0).toISOString()},`, 'filter[tags]': genre, sort: '-date_updated' }))).toEqual(expected);
  });

  it('refuses a minimum after the maximum and malformed dates with 400 naming filter[date_updated], like filter[date_published]', async () => {
    for (const value of ['2026-01-02,2026-01-01', '2026-01-01T10:00:00Z,2026-01-01T09:59:59.999Z', '2026-02-30', 'yesterday', ',']) {
      expectError(await raw(`/stories?filter[date_updated]=${encodeURIComponent(value)}`), 400, 'invalid_parameter', { parameter: 'filter[date_updated]' });
      expectError(await raw(`/stories?filter[date_published]=${encodeURIComponent(value)}`), 400, 'invalid_parameter', { parameter: 'filter[date_published]' });
    }
    // GET /users/:id/stories has filter[published] only.
    expectError(await raw(`/users/${writer.id}/stories?filter[date_updated]=2026-01-01`), 400, 'invalid_parameter', { parameter: 'filter[date_updated]' });
  });
});

describe('a shelf by its stories\' updates', () => {
  it('answers "stories on my shelf updated since" in one request, newest update first, and follows a new chapter at once', async () => {
    const shelf = ok(await api(owner.token).POST('/users/{id}/bookshelves', { params: { path: { id: 'me' } }, body: { data: { type: 'bookshelf', attributes: { name: 'Following', privacy: 'private' } } } }), 201).data;
    const shelved = [published[1]!, published[2]!, published[4]!, published[5]!];
    for (const story of shelved) {
      const body = { data: { type: 'bookshelf_item' as const, attributes: {}, relationships: { story: { data: { type: 'story' as const, id: story.id } } } } };
      ok(await api(owner.token).POST('/bookshelves/{id}/items', { params: { path: { id: shelf.id } }, body }), 201);
    }
    const onShelf = (query: StoryList) =>
      walkPages((next) => api(owner.token).GET('/stories', { params: { query: { 'filter[bookshelf]': shelf.id, sort: '-date_updated', 'page[size]': 1, ...query } }, ...next })).then(idsOf);
    const all = byUpdate(shelved.map((story) => byId(story.id)), true);
    await eventually(() => onShelf({}), (ids) => JSON.stringify(ids) === JSON.stringify(all), 'the shelf copy to hold the items');
    expect(await onShelf({ sort: 'date_updated' })).toEqual([...all].reverse());

    // Updated since the second-newest update among them (published[2]'s later chapter).
    const since = new Date(updatedAt(byId(published[2]!.id))!).toISOString();
    const week = `${since},`;
    expect(await onShelf({ 'filter[date_updated]': week })).toEqual([published[4]!.id, published[2]!.id]);
    expect(await onShelf({ 'filter[date_updated]': week, query: TERM })).toEqual([published[4]!.id, published[2]!.id]);
    expect(await onShelf({ 'filter[date_updated]': week, sort: '-date_added' })).toEqual([published[4]!.id, published[2]!.id]);
    expect(await onShelf({ 'filter[date_updated]': `,${since}` })).toEqual(all.filter((id) => id !== published[4]!.id));

    // A new chapter of published[5] is an update: it enters the window and comes first, on the very next request.
    await addChapter(published[5]!.id, true);
    expect(await onShelf({ 'filter[date_updated]': week })).toEqual([published[5]!.id, published[4]!.id, published[2]!.id]);
    // A draft chapter is none.
    await addChapter(published[1]!.id, false);
    expect(await onShelf({ 'filter[date_updated]': week })).toEqual([published[5]!.id, published[4]!.id, published[2]!.id]);
  });
});

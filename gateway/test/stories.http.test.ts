import { createRedis, type Redis } from '@inkwell/redis';
import { createAppToken, createTestUser, eventually, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components, operations } from '@inkwell/client';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { expectError, follow, JsonApiClient, ok, walkPages, type FollowOptions } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_stories';
/** A search word that appears nowhere but in this file's corpus. */
const TERM = 'zorbquail';

let stack: GatewayStack;
let client: JsonApiClient;
let redis: Redis;
/** Writes and reads their own drafts. */
let writer: TestUser;
/** Writes, but cannot read their own drafts. */
let blindWriter: TestUser;
/** Another user, with every story scope: still cannot see other people's drafts. */
let other: TestUser;
/** No scopes at all. */
let reader: TestUser;
let appToken: string;
let genres: string[];
let characters: string[];

type Story = components['schemas']['StoryResource'];
type StoryList = NonNullable<operations['getStories']['parameters']['query']>;
type StorySort = NonNullable<StoryList['sort']>;
type ChapterAttributes = components['schemas']['PostStoriesByIdChaptersRequest']['data']['attributes'];

/** The writer's published corpus, in creation order. */
const corpus: Story[] = [];
/** The stories mentioning TERM, in the order relevance must rank them. */
const ranked: Story[] = [];
let draft: Story;
let draftChapterId: string;
let publishedStory: Story;
let draftChapterInPublished: string;
let publishedChapterId: string;
let blindDraft: Story;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  redis = createRedis(stackEnv().redisUrl);
  [writer, blindWriter, other, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system, { scopes: ['write_stories'] }),
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system),
  ]);
  appToken = (await createAppToken(stack.system)).token;
  const tagsOf = async (kind: 'genre' | 'character') => ok(await api().GET('/tags', { params: { query: { 'filter[kind]': kind, 'page[size]': 4 } } })).data.map((tag) => tag.id);
  genres = await tagsOf('genre');
  characters = await tagsOf('character');

  const statuses = ['complete', 'incomplete', 'on-hiatus', 'cancelled'] as const;
  for (let i = 0; i < 12; i++) {
    corpus.push(
      await publish(writer, {
        title: `Story ${i}`,
        words: 10 * (i % 6) + 10,
        status: statuses[i % 4]!,
        tags: [genres[i % 2]!, ...(i % 3 === 0 ? [characters[0]!] : [])],
      }),
    );
  }
  // Six words each, so that document length does not sway the ranking: the term in the title
  // and the description, in the title, in the short description, in the description.
  for (const [title, shortDescription, description] of [
    [`${TERM} candle`, 'amber meadow', `${TERM} river`],
    [`${TERM} lantern`, 'amber meadow', 'copper river'],
    ['silver lantern', `${TERM} meadow`, 'copper river'],
    ['silver lamp', 'amber meadow', `${TERM} river`],
  ] as const) {
    const story = await publish(writer, { title, shortDescription, description, words: 5 });
    corpus.push(story);
    ranked.push(story);
  }

  draft = await createStory(writer, { title: 'Unfinished draft' });
  draftChapterId = (await createChapter(writer, draft.id, { title: 'Draft one', content: 'draft words here', published: true })).id;
  publishedStory = corpus[0]!;
  publishedChapterId = (publishedStory.relationships!.chapters!.data as { id: string }[])[0]!.id;
  draftChapterInPublished = (await createChapter(writer, publishedStory.id, { title: 'Not yet', content: 'secret words', published: false })).id;
  blindDraft = await createStory(blindWriter, { title: 'Blind draft' });
  await createChapter(blindWriter, blindDraft.id, { title: 'Blind one', content: 'x', published: false });
  await searchCaughtUp();
}, 300_000);

afterAll(async () => {
  await redis?.quit();
  await stack?.stop();
});

/** The typed client (checked against the API document) as `token`: the reader's when undefined, none when null. */
const api = (token?: string | null) => client.as(token);
/** A raw GET as `token` (the reader's by default): for parameters the API document does not describe or refuses, sent on purpose. */
const raw = (path: string, token?: string | null) => client.call('GET', path, { token });
const story$ = (id: string, query: NonNullable<operations['getStoriesById']['parameters']['query']> = {}) => ({ params: { path: { id }, query } });
/** The path of a resource by id, for calls without query parameters (DELETE). */
const id$ = (id: string) => ({ params: { path: { id } } });
const chapter$ = (id: string, query: NonNullable<operations['getChaptersById']['parameters']['query']> = {}) => ({ params: { path: { id }, query } });
/** GET /stories with `query` as `token` (the reader's by default). */
const stories = (query: StoryList, token?: string) => api(token).GET('/stories', { params: { query } });

interface StoryInput {
  title: string;
  shortDescription?: string;
  description?: string;
  status?: Story['attributes']['status'] & string;
  tags?: string[];
}

async function createStory(user: TestUser, input: StoryInput): Promise<Story> {
  const attributes = {
    title: input.title,
    ...(input.shortDescription === undefined ? {} : { short_description: input.shortDescription }),
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.status === undefined ? {} : { status: input.status }),
  };
  const relationships = { tags: { data: (input.tags ?? []).map((id) => ({ type: 'tag' as const, id })) } };
  return ok(await api(user.token).POST('/stories', { body: { data: { type: 'story', attributes, relationships } } }), 201).data;
}

async function createChapter(user: TestUser, storyId: string, attributes: ChapterAttributes): Promise<components['schemas']['ChapterResource']> {
  return ok(await api(user.token).POST('/stories/{id}/chapters', { params: { path: { id: storyId } }, body: { data: { type: 'chapter', attributes } } }), 201).data;
}

/** Creates a story with one published chapter of `words` words and publishes it. */
async function publish(user: TestUser, input: StoryInput & { words: number }): Promise<Story> {
  const story = await createStory(user, input);
  await createChapter(user, story.id, { title: 'One', content: 'word '.repeat(input.words).trim(), published: true });
  return ok(await api(user.token).PATCH('/stories/{id}', { ...story$(story.id), body: { data: { type: 'story', id: story.id, attributes: { published: true } } } })).data;
}

/** Ids of a story list restricted to the writer's stories (other tests' and the demo seed's stories are elsewhere). */
async function ids(query: StoryList, token?: string): Promise<string[]> {
  const body = ok(await stories({ 'filter[author]': writer.id, 'page[size]': 100, ...query }, token));
  expect(body.links.next).toBeUndefined();
  return body.data.map((story) => story.id);
}

/** Every id of a list, page by page as `page` asks for them (spreading `next` into its options). */
async function allIds(page: (next: FollowOptions | undefined) => Promise<{ data?: { data: { id: string }[]; links: { next?: string } }; response: Response }>): Promise<string[]> {
  return idsOf(await walkPages(page));
}

/** The value sorts of GET /stories (and of GET /users/:id/stories). */
const SORT_FIELDS = ['date_published', 'hotness', 'date_modified', 'rating', 'num_words', 'num_views', 'num_comments', 'num_likes', 'num_dislikes'] as const;

/**
 * Waits (polling, at most 10 s) until GET /stories, answered from the search index that follows
 * the events, lists exactly the writer's published stories as the database has them (GET
 * /users/:id/stories), in the same order by every value sort: the index holds their current
 * values, not only the stories (a late event, e.g. a later date_modified, would otherwise put a
 * page in an order its own values contradict).
 */
async function searchCaughtUp(): Promise<void> {
  let seen = '';
  await eventually(
    async () => {
      for (const field of SORT_FIELDS) {
        const query = { 'page[size]': 100, 'fields[story]': 'num_words', sort: `-${field}` as const };
        const expected = await allIds((next) => api().GET('/users/{id}/stories', { params: { path: { id: writer.id }, query: { 'filter[published]': 'true', ...query } }, ...next }));
        const listed = await allIds((next) => api().GET('/stories', { params: { query: { 'filter[author]': writer.id, ...query } }, ...next }));
        seen = `by -${field}: listed ${JSON.stringify(listed)}, expected ${JSON.stringify(expected)}`;
        if (JSON.stringify(listed) !== JSON.stringify(expected)) return false;
      }
      return true;
    },
    { timeoutMs: 10_000, intervalMs: 100, what: () => `the search index to catch up with the database (${seen})` },
  );
}

const idsOf = (resources: readonly { id: string }[]): string[] => resources.map((resource) => resource.id);
const sortIds = (list: string[]): string[] => [...list].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
const byId = (id: string): Story => corpus.find((story) => story.id === id)!;
const tagIdsOf = (story: Story): string[] => (story.relationships?.tags?.data ?? []).map((tag) => tag.id);

/** Compares by the sort field's value (null last in both directions), then by id, in the sort's direction. */
function compareBy(field: string, descending: boolean): (a: Story, b: Story) => number {
  const value = (story: Story): number | null => {
    const raw = (story.attributes as Record<string, unknown>)[field];
    if (raw === null || raw === undefined) return null;
    return typeof raw === 'string' ? Date.parse(raw) : (raw as number);
  };
  return (a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va === null && vb !== null) return 1;
    if (vb === null && va !== null) return -1;
    const direction = descending ? -1 : 1;
    if (va !== null && vb !== null && va !== vb) return (va < vb ? -1 : 1) * direction;
    return (BigInt(a.id) < BigInt(b.id) ? -1 : 1) * direction;
  };
}

function expectOrdered(stories: Story[], field: string, descending: boolean): void {
  const compare = compareBy(field, descending);
  for (let i = 1; i < stories.length; i++) {
    expect(compare(stories[i - 1]!, stories[i]!), `${descending ? '-' : ''}${field}: ${stories[i - 1]!.id} before ${stories[i]!.id}`).toBeLessThan(0);
  }
}

describe('writing stories', () => {
  it('creates with 201, Location and links.self of the new story, as a draft with the tags relationship', async () => {
    const result = await api(writer.token).POST('/stories', {
      body: { data: { type: 'story', attributes: { title: 'Fresh', status: 'complete' }, relationships: { tags: { data: [{ type: 'tag', id: genres[0]! }] } } } },
    });
    const body = ok(result, 201);
    const story = body.data;
    expect(result.response.headers.get('location')).toBe(`${stack.origin}/api/v1/stories/${story.id}`);
    expect(body.links.self).toBe(result.response.headers.get('location'));
    expect(story.attributes).toMatchObject({ title: 'Fresh', status: 'complete', content_rating: 'everyone', published: false, date_published: null, num_chapters: 0 });
    expect(story.attributes).not.toHaveProperty('tags');
    expect(story.relationships?.tags?.data).toEqual([{ type: 'tag', id: genres[0] }]);
    expect(story.relationships?.author?.data).toEqual({ type: 'user', id: writer.id });
  });

  it('updates with PATCH and deletes with 204, after which the story is gone', async () => {
    const story = await createStory(writer, { title: 'Doomed' });
    const patched = ok(await api(writer.token).PATCH('/stories/{id}', { ...story$(story.id), body: { data: { type: 'story', id: story.id, attributes: { title: 'Renamed' }, relationships: { tags: { data: [] } } } } })).data;
    expect(patched.attributes.title).toBe('Renamed');
    ok(await api(writer.token).DELETE('/stories/{id}', id$(story.id)), 204);
    expectError(await api(writer.token).GET('/stories/{id}', story$(story.id)), 404, 'not_found');
  });

  it('refuses to publish a story without a published chapter (422 at /data/attributes/published)', async () => {
    const story = await createStory(writer, { title: 'Empty' });
    expectError(await api(writer.token).PATCH('/stories/{id}', { ...story$(story.id), body: { data: { type: 'story', id: story.id, attributes: { published: true } } } }), 422, 'validation_failed', {
      pointer: '/data/attributes/published',
    });
  });

  it('applies the JSON:API write rules', async () => {
    // Bodies the document refuses (not a resource, wrong type, client id, read-only or missing members) are sent raw; the rest are typed.
    const post = (body: unknown) => client.call('POST', '/stories', { token: writer.token, body });
    const storyBody = (data: Record<string, unknown>) => ({ data: { type: 'story', ...data } });
    expectError(await post({ data: [] }), 400, 'invalid_body');
    expectError(await post({ data: { type: 'chapter', attributes: { title: 'x' } } }), 409, 'conflict');
    expectError(await post(storyBody({ id: '5', attributes: { title: 'x' } })), 403, 'forbidden');
    expectError(await post(storyBody({ attributes: { title: 'x', num_words: 9 } })), 422, 'validation_failed', { pointer: '/data/attributes/num_words' });
    expectError(await post(storyBody({ attributes: {} })), 422, 'validation_failed', { pointer: '/data/attributes/title' });
    const typed = (attributes: { title: string; short_description?: string }, tags: string[] = []) =>
      api(writer.token).POST('/stories', { body: { data: { type: 'story', attributes, relationships: { tags: { data: tags.map((id) => ({ type: 'tag' as const, id })) } } } } });
    expectError(await typed({ title: 'x'.repeat(201) }), 422, 'validation_failed', { pointer: '/data/attributes/title' });
    expectError(await typed({ title: 'x', short_description: 'y'.repeat(301) }), 422, 'validation_failed', { pointer: '/data/attributes/short_description' });
    expectError(await typed({ title: 'x' }, ['x:1']), 422, 'validation_failed', { pointer: '/data/relationships/tags/data/0/id' });
    expectError(await typed({ title: 'x' }, ['g:999999']), 422, 'validation_failed', { pointer: '/data/relationships/tags' });
    expectError(await api(writer.token).PATCH('/stories/{id}', { ...story$(draft.id), body: { data: { type: 'story', id: '1', attributes: {} } } }), 409, 'conflict');
  });

  it('needs write_stories, a user and authorship', async () => {
    const body = { data: { type: 'story' as const, attributes: { title: 'x' } } };
    const noScope = await api(reader.token).POST('/stories', { body });
    expectError(noScope, 403, 'insufficient_scope');
    expect(noScope.response.headers.get('www-authenticate')).toContain('scope="write_stories"');
    expectError(await api(appToken).POST('/stories', { body }), 403, 'forbidden');
    expectError(await api(other.token).PATCH('/stories/{id}', { ...story$(publishedStory.id), body: { data: { type: 'story', id: publishedStory.id, attributes: { title: 'mine' } } } }), 403, 'forbidden');
    expectError(await api(other.token).DELETE('/chapters/{id}', id$(publishedChapterId)), 403, 'forbidden');
  });

  it('refuses an invalid body for someone who may not write: 403 forbidden, or 404 for what the caller cannot see', async () => {
    const tooLong = 'x'.repeat(201);
    const patchStory = (id: string, token: string) => api(token).PATCH('/stories/{id}', { ...story$(id), body: { data: { type: 'story', id, attributes: { title: tooLong } } } });
    const postChapter = (storyId: string) => api(other.token).POST('/stories/{id}/chapters', { ...story$(storyId), body: { data: { type: 'chapter', attributes: { title: ' ', content: 'c' } } } });
    const patchChapter = (id: string) => api(other.token).PATCH('/chapters/{id}', { ...chapter$(id), body: { data: { type: 'chapter', id, attributes: { title: tooLong } } } });
    expectError(await patchStory(publishedStory.id, other.token), 403, 'forbidden');
    expectError(await patchStory(draft.id, other.token), 404, 'not_found');
    expectError(await patchStory('987654321', other.token), 404, 'not_found');
    expectError(await postChapter(publishedStory.id), 403, 'forbidden');
    expectError(await postChapter(draft.id), 404, 'not_found');
    expectError(await patchChapter(publishedChapterId), 403, 'forbidden');
    expectError(await patchChapter(draftChapterInPublished), 404, 'not_found');
    // The author hears about the value itself.
    expectError(await patchStory(publishedStory.id, writer.token), 422, 'validation_failed', { pointer: '/data/attributes/title' });
  });

  it('creates, edits and deletes chapters, numbering them 1..n', async () => {
    const story = await createStory(writer, { title: 'Chaptered' });
    const first = await createChapter(writer, story.id, { title: 'A', content: 'one two', published: true });
    const second = await createChapter(writer, story.id, { title: 'B', content: 'three', published: true });
    expect([first.attributes.chapter_number, second.attributes.chapter_number]).toEqual([1, 2]);
    const edited = ok(await api(writer.token).PATCH('/chapters/{id}', { ...chapter$(second.id, { 'fields[chapter]': 'title,content' }), body: { data: { type: 'chapter', id: second.id, attributes: { content: 'three four five' } } } })).data;
    expect(edited.attributes).toEqual({ title: 'B', content: 'three four five' });
    ok(await api(writer.token).DELETE('/chapters/{id}', id$(first.id)), 204);
    expect(ok(await api(writer.token).GET('/chapters/{id}', chapter$(second.id))).data.attributes.chapter_number).toBe(1);
  });
});

describe('GET /stories filters', () => {
  it('filters by ids and author, never listing drafts', async () => {
    const wanted = [corpus[3]!.id, corpus[1]!.id, draft.id];
    expect(await ids({ 'filter[ids]': wanted.join(','), sort: 'date_published' })).toEqual(sortIds([corpus[1]!.id, corpus[3]!.id]));
    expect(sortIds(await ids({}))).toEqual(sortIds(idsOf(corpus)));
  });

  it('filters by several authors, listing the stories of any of them', async () => {
    const second = await createTestUser(stack.system, { scopes: ['write_stories'] });
    const theirs = await publish(second, { title: 'A second writer', words: 12 });
    const byAuthors = async (authors: string) => idsOf(ok(await stories({ 'filter[author]': authors, 'page[size]': 100 })).data);
    await eventually(async () => (await byAuthors(second.id)).includes(theirs.id), { timeoutMs: 10_000, intervalMs: 50, what: 'the second writer\'s story in the index' });
    expect(sortIds(await byAuthors(`${second.id},${writer.id}`))).toEqual(sortIds([...idsOf(corpus), theirs.id]));
    expect(await byAuthors(`${second.id},987654321`)).toEqual([theirs.id]);
  });

  it('filters num_words with inclusive bounds and open ranges', async () => {
    const inRange = (min: number, max: number) => sortIds(idsOf(corpus.filter((story) => story.attributes.num_words! >= min && story.attributes.num_words! <= max)));
    const words = (range: string) => ids({ 'filter[num_words]': range });
    expect(sortIds(await words('20,40'))).toEqual(inRange(20, 40));
    expect(sortIds(await words('50,'))).toEqual(inRange(50, Infinity));
    expect(sortIds(await words(',10'))).toEqual(inRange(0, 10));
    expect(sortIds(await words('30'))).toEqual(inRange(30, 30));
    expect(inRange(20, 40).length).toBeGreaterThan(0);
  });

  it('filters status and tags (all of them), alone and combined', async () => {
    const matching = (predicate: (story: Story) => boolean) => sortIds(idsOf(corpus.filter(predicate)));
    expect(sortIds(await ids({ 'filter[status]': 'on-hiatus' }))).toEqual(matching((story) => story.attributes.status === 'on-hiatus'));
    expect(sortIds(await ids({ 'filter[tags]': genres[0]! }))).toEqual(matching((story) => tagIdsOf(story).includes(genres[0]!)));
    expect(sortIds(await ids({ 'filter[tags]': `${characters[0]},${genres[0]}` }))).toEqual(matching((story) => tagIdsOf(story).includes(genres[0]!) && tagIdsOf(story).includes(characters[0]!)));
    expect(sortIds(await ids({ 'filter[tags]': `${genres[0]},${genres[1]}` }))).toEqual([]);
    expect(sortIds(await ids({ 'filter[tags]': genres[1]!, 'filter[num_words]': '20,50', 'filter[status]': 'incomplete' }))).toEqual(
      matching((story) => tagIdsOf(story).includes(genres[1]!) && story.attributes.num_words! >= 20 && story.attributes.num_words! <= 50 && story.attributes.status === 'incomplete'),
    );
  });

  it('filters date_published with inclusive date-times, whole UTC days and open sides', async () => {
    const published = corpus.map((story) => story.attributes.date_published!);
    const middle = corpus[5]!;
    const at = middle.attributes.date_published!;
    const dated = (range: string) => ids({ 'filter[date_published]': range });
    const before = sortIds(idsOf(corpus.filter((story) => Date.parse(story.attributes.date_published!) <= Date.parse(at))));
    const after = sortIds(idsOf(corpus.filter((story) => Date.parse(story.attributes.date_published!) >= Date.parse(at))));
    expect(sortIds(await dated(`,${at}`))).toEqual(before);
    expect(sortIds(await dated(`${at},`))).toEqual(after);
    expect(await dated(`${at},${at}`)).toEqual([middle.id]);
    const offset = new Date(Date.parse(at) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await dated(`${offset},${offset}`)).toEqual([middle.id]);

    const days = [...new Set(published.map((date) => date.slice(0, 10)))];
    const day = (offsetDays: number, from: string) => new Date(Date.parse(from) + offsetDays * 86_400_000).toISOString().slice(0, 10);
    const first = days.sort()[0]!;
    const last = days.sort().at(-1)!;
    expect(sortIds(await dated(`${first},${last}`))).toEqual(sortIds(idsOf(corpus)));
    expect(sortIds(await dated(first))).toEqual(sortIds(idsOf(corpus.filter((story) => story.attributes.date_published!.startsWith(first)))));
    expect(await dated(`,${day(-1, first)}`)).toEqual([]);
    expect(await dated(`${day(1, last)},`)).toEqual([]);
  });

  it('rejects malformed filters with 400 naming the parameter', async () => {
    // Malformed on purpose (several break the document's own parameter schemas): sent raw.
    for (const [query, parameter] of [
      ['filter[num_words]=50,10', 'filter[num_words]'],
      ['filter[num_words]=ten', 'filter[num_words]'],
      ['filter[date_published]=2026-02-30', 'filter[date_published]'],
      ['filter[date_published]=2026-01-02,2026-01-01', 'filter[date_published]'],
      ['filter[status]=finished', 'filter[status]'],
      ['filter[tags]=adventure', 'filter[tags]'],
      ['filter[ids]=1,,2', 'filter[ids]'],
      ['filter[author]=me', 'filter[author]'],
      ['filter[colour]=red', 'filter[colour]'],
      ['colour=red', 'colour'],
    ]) {
      expectError(await raw(`/stories?${query}`), 400, 'invalid_parameter', { parameter: parameter! });
    }
  });
});

describe('GET /stories sorting', () => {
  const sortOf = (field: (typeof SORT_FIELDS)[number], descending: boolean): StorySort => (descending ? `-${field}` : field);

  it.each(SORT_FIELDS.flatMap((field) => [[field, false] as const, [field, true] as const]))('sorts by %s (descending: %s) with ties broken by id in the same direction', async (field, descending) => {
    const body = ok(await stories({ 'filter[author]': writer.id, 'page[size]': 100, sort: sortOf(field, descending) }));
    expect(sortIds(idsOf(body.data))).toEqual(sortIds(idsOf(corpus)));
    expectOrdered(body.data, field, descending);
  });

  it('defaults to -date_published', async () => {
    const body = ok(await stories({ 'filter[author]': writer.id, 'page[size]': 100 }));
    expect(idsOf(body.data)).toEqual(idsOf([...corpus].sort(compareBy('date_published', true))));
  });

  it('orders num_words with real ties by id', async () => {
    const body = ok(await stories({ 'filter[author]': writer.id, 'page[size]': 100, sort: '-num_words' }));
    expect(idsOf(body.data)).toEqual(idsOf([...corpus].sort(compareBy('num_words', true))));
  });

  it('rejects two sort fields, unknown fields and relevance without a query', async () => {
    // Two fields and an unknown field break the document's sort schema: sent raw.
    expectError(await raw('/stories?sort=num_words,-rating'), 400, 'too_many_sort_fields', { parameter: 'sort' });
    expectError(await raw('/stories?sort=title'), 400, 'invalid_sort', { parameter: 'sort' });
    expectError(await stories({ sort: '-relevance' }), 400, 'invalid_sort', { parameter: 'sort' });
  });

  it('takes search text of up to 200 characters after trimming and refuses longer with 400 naming query', async () => {
    const refused = await stories({ query: '𝔁'.repeat(201) });
    expectError(refused, 400, 'invalid_parameter', { parameter: 'query' });
    expect(refused.error?.errors[0]?.detail).toBe('The search text is longer than 200 characters.');
    expect(ok(await stories({ query: ` ${'𝔁'.repeat(200)} ` })).data).toEqual([]);
  });
});

describe('GET /stories search', () => {
  it('ranks by relevance: title and description, title, short description, description; ascending is the reverse', async () => {
    const body = ok(await stories({ 'filter[author]': writer.id, query: TERM, sort: '-relevance' }));
    expect(idsOf(body.data)).toEqual(idsOf(ranked));
    const reverse = ok(await stories({ 'filter[author]': writer.id, query: TERM, sort: 'relevance' }));
    expect(idsOf(reverse.data)).toEqual(idsOf(ranked).reverse());
  });

  it('keeps the default sort (-date_published) with a query', async () => {
    const body = ok(await stories({ 'filter[author]': writer.id, query: TERM }));
    expect(idsOf(body.data)).toEqual(idsOf([...ranked].sort(compareBy('date_published', true))));
  });

  it('finds stories by the names of their tags', async () => {
    const tag = ok(await api().GET('/tags', { params: { query: { 'filter[kind]': 'character', 'page[size]': 1 } } })).data[0]!;
    const withTag = corpus.filter((story) => tagIdsOf(story).includes(tag.id));
    const found = ok(await stories({ 'filter[author]': writer.id, 'page[size]': 100, query: String(tag.attributes.name) })).data;
    expect(sortIds(idsOf(found))).toEqual(sortIds(idsOf(withTag)));
  });

  it('counts the whole list in meta.total, and its stories per tag with facets=tags', async () => {
    await searchCaughtUp();
    const all = await walkPages((next) => stories({ 'filter[author]': writer.id, 'page[size]': 100, ...next }));
    const recount: Record<string, number> = {};
    for (const story of all) for (const tag of tagIdsOf(story)) recount[tag] = (recount[tag] ?? 0) + 1;
    const page = ok(await stories({ 'filter[author]': writer.id, 'page[size]': 2, facets: 'tags' }));
    expect(page.meta).toEqual({ total: all.length, total_is_lower_bound: false, facets: { tags: recount } });
    const counts = Object.values((page.meta!.facets as { tags: Record<string, number> }).tags);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const next = ok(await raw(page.links!.next!));
    expect(next.meta).toEqual({ total: all.length, total_is_lower_bound: false, facets: { tags: recount } });
    const searched = ok(await stories({ 'filter[author]': writer.id, query: TERM, facets: 'tags' }));
    expect(searched.meta).toEqual({ total: ranked.length, total_is_lower_bound: false, facets: { tags: {} } });
    expect(ok(await stories({ 'filter[author]': writer.id, 'page[size]': 1 })).meta).toEqual({ total: all.length, total_is_lower_bound: false });
  });

  it('rejects unknown facets, and facets on a bookshelf list', async () => {
    // facets=authors is outside the document's facets: sent raw.
    expectError(await raw('/stories?facets=authors'), 400, 'invalid_parameter', { parameter: 'facets' });
    expectError(await stories({ facets: 'tags', 'filter[bookshelf]': '1' }), 400, 'invalid_parameter', { parameter: 'facets' });
    expectError(await raw(`/users/${writer.id}/stories?facets=tags`), 400, 'invalid_parameter', { parameter: 'facets' });
  });

  it('keeps the query and every other parameter in links.next', async () => {
    const query: StoryList = { 'filter[author]': writer.id, query: TERM, sort: '-relevance', 'page[size]': 1, 'fields[story]': 'title' };
    const body = ok(await stories(query));
    expect(body.links.next).toContain(`query=${TERM}`);
    expect(body.links.next).toContain('sort=-relevance');
    expect(body.links.next).toContain('fields[story]=title');
    const next = ok(await api().GET('/stories', { params: { query }, ...follow(body.links.next!) }));
    expect(next.data.map((story) => story.attributes)).toEqual([{ title: ranked[1]!.attributes.title }]);
  });
});

describe('include and fields', () => {
  it('includes the author, the tags and the chapters of a page, each once', async () => {
    const body = ok(await stories({ 'filter[author]': writer.id, 'filter[num_words]': '10', include: 'author,tags,chapters', 'page[size]': 100 }));
    const included = body.included!;
    expect(included.filter((resource) => resource.type === 'user').map((user) => user.id)).toEqual([writer.id]);
    const tagIds = new Set(body.data.flatMap(tagIdsOf));
    expect(new Set(included.filter((resource) => resource.type === 'tag').map((tag) => tag.id))).toEqual(tagIds);
    const chapterIds = body.data.flatMap((story) => (story.relationships?.chapters?.data ?? []).map((chapter) => chapter.id));
    expect(included.filter((resource) => resource.type === 'chapter').map((chapter) => chapter.id).sort()).toEqual([...chapterIds].sort());
    expect(new Set(included.map((resource) => `${resource.type}:${resource.id}`)).size).toBe(included.length);
    expect(included.find((resource) => resource.type === 'chapter')?.attributes).not.toHaveProperty('content');
    expect(included.find((resource) => resource.type === 'tag')).not.toHaveProperty('links');
  });

  it('narrows attributes and relationships with fields, in data and in included', async () => {
    const body = ok(await api().GET('/stories/{id}', story$(publishedStory.id, { include: 'author', 'fields[story]': 'title,author', 'fields[user]': 'name' })));
    expect(body.data.attributes).toEqual({ title: publishedStory.attributes.title });
    expect(Object.keys(body.data.relationships!)).toEqual(['author']);
    expect(body.included).toEqual([{ id: writer.id, type: 'user', attributes: { name: writer.name }, links: { self: `${stack.origin}/api/v1/users/${writer.id}` } }]);
  });

  it('returns chapter content only when fields[chapter] names it', async () => {
    const plain = ok(await api().GET('/chapters/{id}', chapter$(publishedChapterId))).data;
    expect(plain.attributes).not.toHaveProperty('content');
    expect(plain.attributes).not.toHaveProperty('content_html');
    expect(plain.attributes).toHaveProperty('title');
    const withHtml = ok(await api().GET('/chapters/{id}', chapter$(publishedChapterId, { 'fields[chapter]': 'title,content_html' }))).data;
    expect(Object.keys(withHtml.attributes).sort()).toEqual(['content_html', 'title']);
    expect(withHtml.attributes.content_html).toContain('word');
    const withContent = ok(await api().GET('/chapters/{id}', chapter$(publishedChapterId, { 'fields[chapter]': 'content', include: 'story.author' })));
    expect(withContent.data.attributes).toEqual({ content: expect.stringMatching(/^word( word)*$/) });
    expect(withContent.included!.map((resource) => `${resource.type}:${resource.id}`)).toEqual([`story:${publishedStory.id}`, `user:${writer.id}`]);
  });

  it('rejects unknown includes and fields, and chapter content where chapters are listed', async () => {
    expectError(await stories({ include: 'comments' }), 400, 'invalid_include', { parameter: 'include' });
    expectError(await api().GET('/chapters/{id}', chapter$(publishedChapterId, { include: 'story.chapters' })), 400, 'invalid_include', { parameter: 'include' });
    expectError(await stories({ 'fields[story]': 'title,body' }), 400, 'invalid_fields', { parameter: 'fields[story]' });
    // fields[bookshelf] is no parameter of GET /stories in the document: sent raw.
    expectError(await raw('/stories?fields[bookshelf]=name'), 400, 'invalid_fields', { parameter: 'fields[bookshelf]' });
    expectError(await api().GET('/stories/{id}', story$(publishedStory.id, { include: 'chapters', 'fields[chapter]': 'content' })), 400, 'invalid_fields', { parameter: 'fields[chapter]' });
  });

  it('lists a story chapters in order and tags without links', async () => {
    const chapters = ok(await api().GET('/stories/{id}/chapters', { params: { path: { id: publishedStory.id }, query: { include: 'story' } } }));
    expect(chapters.data.map((chapter) => chapter.attributes.chapter_number)).toEqual([1]);
    expect(chapters.included!.map((resource) => resource.id)).toEqual([publishedStory.id]);
    const tags = ok(await api().GET('/tags', { params: { query: { sort: 'name', 'page[size]': 3 } } }));
    const names = tags.data.map((tag) => tag.attributes.name!);
    expect(names).toEqual([...names].sort());
    expect(tags.data[0]!.links).toBeUndefined();
  });
});

describe('pagination', () => {
  it('rejects bad page sizes', async () => {
    for (const size of [0, -1, 101]) {
      expectError(await stories({ 'page[size]': size }), 400, 'invalid_parameter', { parameter: 'page[size]' });
    }
    // Sizes that are no integer, and page[number] (no parameter of GET /stories), break the document: sent raw.
    for (const size of ['2.5', 'ten']) {
      expectError(await raw(`/stories?page[size]=${size}`), 400, 'invalid_parameter', { parameter: 'page[size]' });
    }
    expectError(await raw('/stories?page[number]=2'), 400, 'invalid_parameter', { parameter: 'page[number]' });
  });

  it('binds a cursor to its query and caller, lets page[size] change, and expires it', async () => {
    const query: StoryList = { 'filter[author]': writer.id, sort: 'num_words', 'page[size]': 2 };
    const first = ok(await stories(query));
    const next = first.links.next!;
    expect(first.links.first).toBe(`${stack.origin}/api/v1/stories?filter[author]=${writer.id}&sort=num_words&page[size]=2`);
    const cursor = new URL(next).searchParams.get('page[cursor]')!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const key = `${stack.system.redisKeyPrefix}inkwell:cursor:${cursor}`;
    expect(await redis.ttl(key)).toBeGreaterThan(3500);

    /** GET /stories at `link` (a links.next, maybe edited) as `token`. */
    const at = (link: string, token?: string) => api(token).GET('/stories', { params: { query }, ...follow(link) });
    expect(ok(await at(next)).data).toHaveLength(2);
    expect(ok(await at(next.replace('page[size]=2', 'page[size]=5'))).data).toHaveLength(5);
    expectError(await at(next.replace('sort=num_words', 'sort=-num_words')), 400, 'invalid_cursor', { parameter: 'page[cursor]' });
    expectError(await at(next.replace(`filter[author]=${writer.id}`, `filter[author]=${other.id}`)), 400, 'invalid_cursor');
    expectError(await at(`${next}&query=${TERM}`), 400, 'invalid_cursor');
    expectError(await at(next, other.token), 400, 'invalid_cursor');
    expectError(await at(next, appToken), 400, 'invalid_cursor');
    expectError(await api().GET('/users/{id}/stories', { params: { path: { id: writer.id }, query: { 'page[cursor]': cursor } } }), 400, 'invalid_cursor');
    expectError(await stories({ 'page[cursor]': 'AAAAAAAAAAAAAAAAAAAAAA' }), 400, 'invalid_cursor');

    await redis.pexpire(key, 1);
    await eventually(async () => (await redis.exists(key)) === 0, { intervalMs: 5, what: 'the cursor to expire' });
    expectError(await at(next), 400, 'invalid_cursor', { parameter: 'page[cursor]' });
  });

  it('walks a list to its end: no next on the last page', async () => {
    const seen = await walkPages((next) => api().GET('/stories', { params: { query: { 'filter[author]': writer.id, 'page[size]': 5 } }, ...next }));
    expect(idsOf(seen)).toEqual(idsOf([...corpus].sort(compareBy('date_published', true))));
  });

  it.each([
    ['num_words', false],
    ['date_published', true],
    ['date_published', false],
  ] as const)('returns every matching story exactly once, in order, with random page sizes while stories are published (sort %s, descending %s)', async (field, descending) => {
    const filter: StoryList = { 'filter[author]': writer.id, 'filter[num_words]': '10,60', sort: descending ? `-${field}` : field };
    await searchCaughtUp();
    const before = ok(await stories({ ...filter, 'page[size]': 100 })).data;
    let publishing = true;
    const published: Story[] = [];
    const publisher = (async () => {
      let n = 0;
      while (publishing) published.push(await publish(writer, { title: `Concurrent ${field} ${n++}`, words: 10 + ((n * 7) % 50) }));
    })();

    const randomSize = () => 1 + Math.floor(Math.random() * 4);
    const walked: Story[] = [];
    try {
      // Each page follows links.next with another random page[size].
      let next: FollowOptions | undefined;
      do {
        const body: { data: Story[]; links: { next?: string } } = ok(await api().GET('/stories', { params: { query: { ...filter, 'page[size]': randomSize() } }, ...next }));
        walked.push(...body.data);
        next = body.links.next === undefined ? undefined : follow(body.links.next.replace(/page\[size\]=\d+/, `page[size]=${randomSize()}`));
      } while (next !== undefined);
    } finally {
      publishing = false;
      await publisher;
    }

    const walkedIds = idsOf(walked);
    expect(new Set(walkedIds).size, 'no story twice').toBe(walkedIds.length);
    for (const story of before) expect(walkedIds.filter((id) => id === story.id), `story ${story.id} exactly once`).toHaveLength(1);
    expectOrdered(walked, field, descending);
    const newIds = new Set(idsOf(published));
    expect(walkedIds.every((id) => newIds.has(id) || before.some((story) => story.id === id))).toBe(true);
    expect(published.length).toBeGreaterThan(0);
  });
});

describe('visibility through HTTP', () => {
  it('shows a draft by id to its author with read_stories only; insufficient_scope without it; 404 to others and apps', async () => {
    expect(ok(await api(writer.token).GET('/stories/{id}', story$(draft.id))).data.attributes.published).toBe(false);
    expectError(await api(blindWriter.token).GET('/stories/{id}', story$(blindDraft.id)), 403, 'insufficient_scope');
    expectError(await api(other.token).GET('/stories/{id}', story$(draft.id)), 404, 'not_found');
    expectError(await api(appToken).GET('/stories/{id}', story$(draft.id)), 404, 'not_found');
    expectError(await api().GET('/stories/{id}', story$(draft.id)), 404, 'not_found');
    expect(ok(await api(appToken).GET('/stories/{id}', story$(publishedStory.id))).data.id).toBe(publishedStory.id);
  });

  it('applies the same rules to chapter lists and chapters by id', async () => {
    const chaptersOf = (storyId: string, token?: string) => api(token).GET('/stories/{id}/chapters', story$(storyId));
    expect(idsOf(ok(await chaptersOf(draft.id, writer.token)).data)).toEqual([draftChapterId]);
    expectError(await chaptersOf(blindDraft.id, blindWriter.token), 403, 'insufficient_scope');
    expectError(await chaptersOf(draft.id, other.token), 404, 'not_found');
    expectError(await chaptersOf(draft.id, appToken), 404, 'not_found');

    const ownList = idsOf(ok(await chaptersOf(publishedStory.id, writer.token)).data);
    expect(ownList).toEqual([publishedChapterId, draftChapterInPublished]);
    for (const token of [other.token, appToken, reader.token]) {
      expect(idsOf(ok(await chaptersOf(publishedStory.id, token)).data)).toEqual([publishedChapterId]);
    }

    const chapter = (id: string, token: string) => api(token).GET('/chapters/{id}', chapter$(id));
    expect(ok(await chapter(draftChapterInPublished, writer.token)).data.id).toBe(draftChapterInPublished);
    expect(ok(await chapter(draftChapterId, writer.token)).data.id).toBe(draftChapterId);
    expectError(await chapter(draftChapterInPublished, other.token), 404, 'not_found');
    expectError(await chapter(draftChapterId, appToken), 404, 'not_found');
    expect(ok(await chapter(publishedChapterId, appToken)).data.id).toBe(publishedChapterId);
  });

  it('lists drafts on /users/:id/stories only for the author with read_stories', async () => {
    const storiesOf = (id: string, token: string, query: NonNullable<operations['getUsersByIdStories']['parameters']['query']> = {}) => api(token).GET('/users/{id}/stories', { params: { path: { id }, query } });
    const ownStories = ok(await storiesOf('me', writer.token, { 'page[size]': 100 })).data;
    expect(idsOf(ownStories)).toContain(draft.id);
    const firstDraft = ownStories.findIndex((story) => story.attributes.date_published === null);
    expect(ownStories.slice(firstDraft).every((story) => story.attributes.date_published === null), 'never-published stories last').toBe(true);
    expectOrdered(ownStories.slice(0, firstDraft), 'date_published', true);
    expect(idsOf(ok(await storiesOf('me', writer.token, { 'filter[published]': 'false', 'page[size]': 100 })).data)).toContain(draft.id);
    expect(ok(await storiesOf('me', writer.token, { 'filter[published]': 'true', 'page[size]': 100 })).data.every((story) => story.attributes.published === true)).toBe(true);

    expect(idsOf(ok(await storiesOf(blindWriter.id, blindWriter.token)).data)).not.toContain(blindDraft.id);
    expectError(await storiesOf('me', blindWriter.token, { 'filter[published]': 'false' }), 403, 'insufficient_scope');

    for (const token of [other.token, appToken, reader.token]) {
      const theirs = idsOf(ok(await storiesOf(writer.id, token, { 'page[size]': 100 })).data);
      expect(theirs).not.toContain(draft.id);
      expect(sortIds(theirs)).toEqual(expect.arrayContaining(sortIds(idsOf(corpus))));
      expect(ok(await storiesOf(writer.id, token, { 'filter[published]': 'false' })).data).toEqual([]);
    }
    expectError(await storiesOf('me', appToken), 401, 'invalid_token');
  });

  it('never lists drafts in search, whoever asks', async () => {
    for (const token of [writer.token, other.token, appToken]) {
      const found = idsOf(ok(await stories({ 'filter[ids]': `${draft.id},${publishedStory.id}` }, token)).data);
      expect(found).toEqual([publishedStory.id]);
      expect(idsOf(ok(await stories({ query: 'Unfinished draft', 'filter[author]': writer.id }, token)).data)).toEqual([]);
    }
  });

  it('needs a token for every read', async () => {
    const refused = await api(null).GET('/stories');
    expect(refused.response.status).toBe(401);
    expect(refused.response.headers.get('www-authenticate')).toBe('Bearer realm="inkwell"');
    expect(byId(publishedStory.id)).toBeDefined();
  });
});

import { createRedis, type Redis } from '@inkwell/redis';
import { createAppToken, createTestUser, eventually, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';

const DATABASE = 'inkwell_test_gateway_stories';
/** A search word that appears nowhere but in this file's corpus. */
const TERM = 'zorbquail';

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } | { type: string; id: string }[] | null }>;
  links?: { self: string };
}

interface Body {
  data?: Resource & Resource[];
  included?: Resource[];
  links?: { self: string; first?: string; next?: string; prev?: string };
  meta?: Record<string, unknown>;
  errors?: { status: string; code: string; detail: string; source?: { pointer?: string; parameter?: string } }[];
}

interface Answer {
  status: number;
  headers: Headers;
  body: Body;
}

let stack: GatewayStack;
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

/** The writer's published corpus, in creation order. */
const corpus: Resource[] = [];
/** The stories mentioning TERM, in the order relevance must rank them. */
const ranked: Resource[] = [];
let draft: Resource;
let draftChapterId: string;
let publishedStory: Resource;
let draftChapterInPublished: string;
let publishedChapterId: string;
let blindDraft: Resource;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  redis = createRedis(stackEnv().redisUrl);
  [writer, blindWriter, other, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system, { scopes: ['write_stories'] }),
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system),
  ]);
  appToken = (await createAppToken(stack.system)).token;
  genres = (await api('GET', '/tags?filter[kind]=genre&page[size]=4')).body.data!.map((tag) => tag.id);
  characters = (await api('GET', '/tags?filter[kind]=character&page[size]=4')).body.data!.map((tag) => tag.id);

  const statuses = ['complete', 'incomplete', 'on-hiatus', 'cancelled'];
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

async function api(method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? reader.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const url = path.startsWith('http') ? path : `${stack.system.apiUrl}${path}`;
  const response = await fetch(url, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Body) };
}

function ok(answer: Answer, status = 200): Body {
  expect(answer.status, JSON.stringify(answer.body.errors)).toBe(status);
  return answer.body;
}

function expectError(answer: Answer, status: number, code: string, source?: { parameter?: string; pointer?: string }): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.errors?.[0]?.code).toBe(code);
  if (source !== undefined) expect(answer.body.errors?.[0]?.source).toEqual(source);
}

interface StoryInput {
  title: string;
  shortDescription?: string;
  description?: string;
  status?: string;
  tags?: string[];
}

async function createStory(user: TestUser, input: StoryInput): Promise<Resource> {
  const attributes: Record<string, unknown> = { title: input.title };
  if (input.shortDescription !== undefined) attributes.short_description = input.shortDescription;
  if (input.description !== undefined) attributes.description = input.description;
  if (input.status !== undefined) attributes.status = input.status;
  const relationships = { tags: { data: (input.tags ?? []).map((id) => ({ type: 'tag', id })) } };
  return ok(await api('POST', '/stories', { token: user.token, body: { data: { type: 'story', attributes, relationships } } }), 201).data!;
}

async function createChapter(user: TestUser, storyId: string, attributes: Record<string, unknown>): Promise<Resource> {
  return ok(await api('POST', `/stories/${storyId}/chapters`, { token: user.token, body: { data: { type: 'chapter', attributes } } }), 201).data!;
}

/** Creates a story with one published chapter of `words` words and publishes it. */
async function publish(user: TestUser, input: StoryInput & { words: number }): Promise<Resource> {
  const story = await createStory(user, input);
  await createChapter(user, story.id, { title: 'One', content: 'word '.repeat(input.words).trim(), published: true });
  return ok(await api('PATCH', `/stories/${story.id}`, { token: user.token, body: { data: { type: 'story', id: story.id, attributes: { published: true } } } })).data!;
}

/** Ids of a story list restricted to the writer's stories (other tests' and the demo seed's stories are elsewhere). */
async function ids(query: string, token?: string): Promise<string[]> {
  const body = ok(await api('GET', `/stories?filter[author]=${writer.id}&page[size]=100&${query}`, { token }));
  expect(body.links?.next).toBeUndefined();
  return body.data!.map((story) => story.id);
}

/** Every page of a list, following links.next. */
async function allIds(path: string): Promise<string[]> {
  const found: string[] = [];
  let url: string | undefined = path;
  while (url !== undefined) {
    const body = ok(await api('GET', url));
    found.push(...body.data!.map((story) => story.id));
    url = body.links?.next;
  }
  return found;
}

/**
 * Waits (polling, at most 10 s) until GET /stories, answered from the search index that follows
 * the events, lists exactly the writer's published stories as the database has them (GET
 * /users/:id/stories).
 */
async function searchCaughtUp(): Promise<void> {
  let seen = '';
  await eventually(
    async () => {
      const expected = sortIds(await allIds(`/users/${writer.id}/stories?filter[published]=true&page[size]=100&fields[story]=num_words`));
      const listed = sortIds(await allIds(`/stories?filter[author]=${writer.id}&page[size]=100&fields[story]=num_words`));
      seen = `listed ${JSON.stringify(listed)}, expected ${JSON.stringify(expected)}`;
      return JSON.stringify(listed) === JSON.stringify(expected);
    },
    { timeoutMs: 10_000, intervalMs: 100, what: () => `the search index to catch up with the database (${seen})` },
  );
}

const idsOf = (stories: Resource[]): string[] => stories.map((story) => story.id);
const sortIds = (list: string[]): string[] => [...list].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
const byId = (id: string): Resource => corpus.find((story) => story.id === id)!;

/** Compares by the sort field's value (null last in both directions), then by id, in the sort's direction. */
function compareBy(field: string, descending: boolean): (a: Resource, b: Resource) => number {
  const value = (story: Resource): number | null => {
    const raw = story.attributes[field];
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

function expectOrdered(stories: Resource[], field: string, descending: boolean): void {
  const compare = compareBy(field, descending);
  for (let i = 1; i < stories.length; i++) {
    expect(compare(stories[i - 1]!, stories[i]!), `${descending ? '-' : ''}${field}: ${stories[i - 1]!.id} before ${stories[i]!.id}`).toBeLessThan(0);
  }
}

describe('writing stories', () => {
  it('creates with 201, Location and links.self of the new story, as a draft with the tags relationship', async () => {
    const answer = await api('POST', '/stories', {
      token: writer.token,
      body: { data: { type: 'story', attributes: { title: 'Fresh', status: 'complete' }, relationships: { tags: { data: [{ type: 'tag', id: genres[0] }] } } } },
    });
    const story = ok(answer, 201).data!;
    expect(answer.headers.get('location')).toBe(`${stack.origin}/api/v1/stories/${story.id}`);
    expect(answer.body.links?.self).toBe(answer.headers.get('location'));
    expect(story.attributes).toMatchObject({ title: 'Fresh', status: 'complete', content_rating: 'everyone', published: false, date_published: null, num_chapters: 0 });
    expect(story.attributes).not.toHaveProperty('tags');
    expect(story.relationships?.tags?.data).toEqual([{ type: 'tag', id: genres[0] }]);
    expect(story.relationships?.author?.data).toEqual({ type: 'user', id: writer.id });
  });

  it('updates with PATCH and deletes with 204, after which the story is gone', async () => {
    const story = await createStory(writer, { title: 'Doomed' });
    const patched = ok(await api('PATCH', `/stories/${story.id}`, { token: writer.token, body: { data: { type: 'story', id: story.id, attributes: { title: 'Renamed' }, relationships: { tags: { data: [] } } } } })).data!;
    expect(patched.attributes.title).toBe('Renamed');
    const deleted = await api('DELETE', `/stories/${story.id}`, { token: writer.token });
    expect(deleted.status).toBe(204);
    expectError(await api('GET', `/stories/${story.id}`, { token: writer.token }), 404, 'not_found');
  });

  it('refuses to publish a story without a published chapter (422 at /data/attributes/published)', async () => {
    const story = await createStory(writer, { title: 'Empty' });
    expectError(await api('PATCH', `/stories/${story.id}`, { token: writer.token, body: { data: { type: 'story', id: story.id, attributes: { published: true } } } }), 422, 'validation_failed', {
      pointer: '/data/attributes/published',
    });
  });

  it('applies the JSON:API write rules', async () => {
    const storyBody = (data: Record<string, unknown>) => ({ data: { type: 'story', ...data } });
    expectError(await api('POST', '/stories', { token: writer.token, body: { data: [] } }), 400, 'invalid_body');
    expectError(await api('POST', '/stories', { token: writer.token, body: { data: { type: 'chapter', attributes: { title: 'x' } } } }), 409, 'conflict');
    expectError(await api('POST', '/stories', { token: writer.token, body: storyBody({ id: '5', attributes: { title: 'x' } }) }), 403, 'forbidden');
    expectError(await api('POST', '/stories', { token: writer.token, body: storyBody({ attributes: { title: 'x', num_words: 9 } }) }), 422, 'validation_failed', { pointer: '/data/attributes/num_words' });
    expectError(await api('POST', '/stories', { token: writer.token, body: storyBody({ attributes: {} }) }), 422, 'validation_failed', { pointer: '/data/attributes/title' });
    expectError(await api('POST', '/stories', { token: writer.token, body: storyBody({ attributes: { title: 'x'.repeat(201) } }) }), 422, 'validation_failed', { pointer: '/data/attributes/title' });
    expectError(await api('POST', '/stories', { token: writer.token, body: storyBody({ attributes: { title: 'x', short_description: 'y'.repeat(301) } }) }), 422, 'validation_failed', {
      pointer: '/data/attributes/short_description',
    });
    expectError(await api('POST', '/stories', { token: writer.token, body: storyBody({ attributes: { title: 'x' }, relationships: { tags: { data: [{ type: 'tag', id: 'x:1' }] } } }) }), 422, 'validation_failed', {
      pointer: '/data/relationships/tags/data/0/id',
    });
    expectError(await api('POST', '/stories', { token: writer.token, body: storyBody({ attributes: { title: 'x' }, relationships: { tags: { data: [{ type: 'tag', id: 'g:999999' }] } } }) }), 422, 'validation_failed', {
      pointer: '/data/relationships/tags',
    });
    expectError(await api('PATCH', `/stories/${draft.id}`, { token: writer.token, body: storyBody({ id: '1', attributes: {} }) }), 409, 'conflict');
  });

  it('needs write_stories, a user and authorship', async () => {
    const body = { data: { type: 'story', attributes: { title: 'x' } } };
    const noScope = await api('POST', '/stories', { token: reader.token, body });
    expectError(noScope, 403, 'insufficient_scope');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="write_stories"');
    expectError(await api('POST', '/stories', { token: appToken, body }), 403, 'forbidden');
    expectError(await api('PATCH', `/stories/${publishedStory.id}`, { token: other.token, body: { data: { type: 'story', id: publishedStory.id, attributes: { title: 'mine' } } } }), 403, 'forbidden');
    expectError(await api('DELETE', `/chapters/${publishedChapterId}`, { token: other.token }), 403, 'forbidden');
  });

  it('creates, edits and deletes chapters, numbering them 1..n', async () => {
    const story = await createStory(writer, { title: 'Chaptered' });
    const first = await createChapter(writer, story.id, { title: 'A', content: 'one two', published: true });
    const second = await createChapter(writer, story.id, { title: 'B', content: 'three', published: true });
    expect([first.attributes.chapter_number, second.attributes.chapter_number]).toEqual([1, 2]);
    const edited = ok(await api('PATCH', `/chapters/${second.id}?fields[chapter]=title,content`, { token: writer.token, body: { data: { type: 'chapter', id: second.id, attributes: { content: 'three four five' } } } })).data!;
    expect(edited.attributes).toEqual({ title: 'B', content: 'three four five' });
    expect((await api('DELETE', `/chapters/${first.id}`, { token: writer.token })).status).toBe(204);
    expect(ok(await api('GET', `/chapters/${second.id}`, { token: writer.token })).data!.attributes.chapter_number).toBe(1);
  });
});

describe('GET /stories filters', () => {
  it('filters by ids and author, never listing drafts', async () => {
    const wanted = [corpus[3]!.id, corpus[1]!.id, draft.id];
    expect(await ids(`filter[ids]=${wanted.join(',')}&sort=date_published`)).toEqual(sortIds([corpus[1]!.id, corpus[3]!.id]));
    expect(sortIds(await ids(''))).toEqual(sortIds(idsOf(corpus)));
  });

  it('filters num_words with inclusive bounds and open ranges', async () => {
    const inRange = (min: number, max: number) => sortIds(idsOf(corpus.filter((story) => (story.attributes.num_words as number) >= min && (story.attributes.num_words as number) <= max)));
    expect(sortIds(await ids('filter[num_words]=20,40'))).toEqual(inRange(20, 40));
    expect(sortIds(await ids('filter[num_words]=50,'))).toEqual(inRange(50, Infinity));
    expect(sortIds(await ids('filter[num_words]=,10'))).toEqual(inRange(0, 10));
    expect(sortIds(await ids('filter[num_words]=30'))).toEqual(inRange(30, 30));
    expect(inRange(20, 40).length).toBeGreaterThan(0);
  });

  it('filters status and tags (all of them), alone and combined', async () => {
    const matching = (predicate: (story: Resource) => boolean) => sortIds(idsOf(corpus.filter(predicate)));
    const tagsOf = (story: Resource) => (story.relationships!.tags!.data as { id: string }[]).map((tag) => tag.id);
    expect(sortIds(await ids('filter[status]=on-hiatus'))).toEqual(matching((story) => story.attributes.status === 'on-hiatus'));
    expect(sortIds(await ids(`filter[tags]=${genres[0]}`))).toEqual(matching((story) => tagsOf(story).includes(genres[0]!)));
    expect(sortIds(await ids(`filter[tags]=${characters[0]},${genres[0]}`))).toEqual(matching((story) => tagsOf(story).includes(genres[0]!) && tagsOf(story).includes(characters[0]!)));
    expect(sortIds(await ids(`filter[tags]=${genres[0]},${genres[1]}`))).toEqual([]);
    expect(sortIds(await ids(`filter[tags]=${genres[1]}&filter[num_words]=20,50&filter[status]=incomplete`))).toEqual(
      matching((story) => tagsOf(story).includes(genres[1]!) && (story.attributes.num_words as number) >= 20 && (story.attributes.num_words as number) <= 50 && story.attributes.status === 'incomplete'),
    );
  });

  it('filters date_published with inclusive date-times, whole UTC days and open sides', async () => {
    const published = corpus.map((story) => story.attributes.date_published as string);
    const middle = corpus[5]!;
    const at = middle.attributes.date_published as string;
    const before = sortIds(idsOf(corpus.filter((story) => Date.parse(story.attributes.date_published as string) <= Date.parse(at))));
    const after = sortIds(idsOf(corpus.filter((story) => Date.parse(story.attributes.date_published as string) >= Date.parse(at))));
    expect(sortIds(await ids(`filter[date_published]=,${at}`))).toEqual(before);
    expect(sortIds(await ids(`filter[date_published]=${at},`))).toEqual(after);
    expect(await ids(`filter[date_published]=${at},${at}`)).toEqual([middle.id]);
    const offset = new Date(Date.parse(at) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await ids(`filter[date_published]=${encodeURIComponent(`${offset},${offset}`)}`)).toEqual([middle.id]);

    const days = [...new Set(published.map((date) => date.slice(0, 10)))];
    const day = (offsetDays: number, from: string) => new Date(Date.parse(from) + offsetDays * 86_400_000).toISOString().slice(0, 10);
    const first = days.sort()[0]!;
    const last = days.sort().at(-1)!;
    expect(sortIds(await ids(`filter[date_published]=${first},${last}`))).toEqual(sortIds(idsOf(corpus)));
    expect(sortIds(await ids(`filter[date_published]=${first}`))).toEqual(sortIds(idsOf(corpus.filter((story) => (story.attributes.date_published as string).startsWith(first)))));
    expect(await ids(`filter[date_published]=,${day(-1, first)}`)).toEqual([]);
    expect(await ids(`filter[date_published]=${day(1, last)},`)).toEqual([]);
  });

  it('rejects malformed filters with 400 naming the parameter', async () => {
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
      expectError(await api('GET', `/stories?${query}`), 400, 'invalid_parameter', { parameter: parameter! });
    }
  });
});

describe('GET /stories sorting', () => {
  const fields = ['date_published', 'hotness', 'date_modified', 'rating', 'num_words', 'num_views', 'num_comments', 'num_likes', 'num_dislikes'];

  it.each(fields.flatMap((field) => [[field, false] as const, [field, true] as const]))('sorts by %s (descending: %s) with ties broken by id in the same direction', async (field, descending) => {
    const body = ok(await api('GET', `/stories?filter[author]=${writer.id}&page[size]=100&sort=${descending ? '-' : ''}${field}`));
    expect(sortIds(idsOf(body.data!))).toEqual(sortIds(idsOf(corpus)));
    expectOrdered(body.data!, field, descending);
  });

  it('defaults to -date_published', async () => {
    const body = ok(await api('GET', `/stories?filter[author]=${writer.id}&page[size]=100`));
    expect(idsOf(body.data!)).toEqual(idsOf([...corpus].sort(compareBy('date_published', true))));
  });

  it('orders num_words with real ties by id', async () => {
    const body = ok(await api('GET', `/stories?filter[author]=${writer.id}&page[size]=100&sort=-num_words`));
    expect(idsOf(body.data!)).toEqual(idsOf([...corpus].sort(compareBy('num_words', true))));
  });

  it('rejects two sort fields, unknown fields and relevance without a query', async () => {
    expectError(await api('GET', '/stories?sort=num_words,-rating'), 400, 'too_many_sort_fields', { parameter: 'sort' });
    expectError(await api('GET', '/stories?sort=title'), 400, 'invalid_sort', { parameter: 'sort' });
    expectError(await api('GET', '/stories?sort=-relevance'), 400, 'invalid_sort', { parameter: 'sort' });
  });

  it('takes search text of up to 200 characters after trimming and refuses longer with 400 naming query', async () => {
    const answer = await api('GET', `/stories?query=${encodeURIComponent('𝔁'.repeat(201))}`);
    expectError(answer, 400, 'invalid_parameter', { parameter: 'query' });
    expect(answer.body.errors?.[0]?.detail).toBe('The search text is longer than 200 characters.');
    expect(ok(await api('GET', `/stories?query=${encodeURIComponent(` ${'𝔁'.repeat(200)} `)}`)).data).toEqual([]);
  });
});

describe('GET /stories search', () => {
  it('ranks by relevance: title and description, title, short description, description; ascending is the reverse', async () => {
    const body = ok(await api('GET', `/stories?filter[author]=${writer.id}&query=${TERM}&sort=-relevance`));
    expect(idsOf(body.data!)).toEqual(idsOf(ranked));
    const reverse = ok(await api('GET', `/stories?filter[author]=${writer.id}&query=${TERM}&sort=relevance`));
    expect(idsOf(reverse.data!)).toEqual(idsOf(ranked).reverse());
  });

  it('keeps the default sort (-date_published) with a query', async () => {
    const body = ok(await api('GET', `/stories?filter[author]=${writer.id}&query=${TERM}`));
    expect(idsOf(body.data!)).toEqual(idsOf([...ranked].sort(compareBy('date_published', true))));
  });

  it('finds stories by the names of their tags', async () => {
    const tag = ok(await api('GET', `/tags?filter[kind]=character&page[size]=1`)).data![0]!;
    const withTag = corpus.filter((story) => (story.relationships!.tags!.data as { id: string }[]).some((t) => t.id === tag.id));
    const found = ok(await api('GET', `/stories?filter[author]=${writer.id}&page[size]=100&query=${encodeURIComponent(String(tag.attributes.name))}`)).data!;
    expect(sortIds(idsOf(found))).toEqual(sortIds(idsOf(withTag)));
  });

  it('counts the whole list in meta.total, and its stories per tag with facets=tags', async () => {
    await searchCaughtUp();
    const all: Resource[] = [];
    let url: string | undefined = `/stories?filter[author]=${writer.id}&page[size]=100`;
    while (url !== undefined) {
      const body = ok(await api('GET', url));
      all.push(...body.data!);
      url = body.links?.next;
    }
    const recount: Record<string, number> = {};
    for (const story of all) for (const tag of story.relationships!.tags!.data as { id: string }[]) recount[tag.id] = (recount[tag.id] ?? 0) + 1;
    const page = ok(await api('GET', `/stories?filter[author]=${writer.id}&page[size]=2&facets=tags`));
    expect(page.meta).toEqual({ total: all.length, total_is_lower_bound: false, facets: { tags: recount } });
    const counts = Object.values((page.meta!.facets as { tags: Record<string, number> }).tags);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const next = ok(await api('GET', page.links!.next!));
    expect(next.meta).toEqual({ total: all.length, total_is_lower_bound: false, facets: { tags: recount } });
    const searched = ok(await api('GET', `/stories?filter[author]=${writer.id}&query=${TERM}&facets=tags`));
    expect(searched.meta).toEqual({ total: ranked.length, total_is_lower_bound: false, facets: { tags: {} } });
    expect(ok(await api('GET', `/stories?filter[author]=${writer.id}&page[size]=1`)).meta).toEqual({ total: all.length, total_is_lower_bound: false });
  });

  it('rejects unknown facets, and facets on a bookshelf list', async () => {
    expectError(await api('GET', '/stories?facets=authors'), 400, 'invalid_parameter', { parameter: 'facets' });
    expectError(await api('GET', '/stories?facets=tags&filter[bookshelf]=1'), 400, 'invalid_parameter', { parameter: 'facets' });
    expectError(await api('GET', `/users/${writer.id}/stories?facets=tags`), 400, 'invalid_parameter', { parameter: 'facets' });
  });

  it('keeps the query and every other parameter in links.next', async () => {
    const body = ok(await api('GET', `/stories?filter[author]=${writer.id}&query=${TERM}&sort=-relevance&page[size]=1&fields[story]=title`));
    expect(body.links?.next).toContain(`query=${TERM}`);
    expect(body.links?.next).toContain('sort=-relevance');
    expect(body.links?.next).toContain('fields[story]=title');
    const next = ok(await api('GET', body.links!.next!));
    expect(next.data!.map((story) => story.attributes)).toEqual([{ title: ranked[1]!.attributes.title }]);
  });
});

describe('include and fields', () => {
  it('includes the author, the tags and the chapters of a page, each once', async () => {
    const body = ok(await api('GET', `/stories?filter[author]=${writer.id}&filter[num_words]=10&include=author,tags,chapters&page[size]=100`));
    const included = body.included!;
    expect(included.filter((resource) => resource.type === 'user').map((user) => user.id)).toEqual([writer.id]);
    const tagIds = new Set(body.data!.flatMap((story) => (story.relationships!.tags!.data as { id: string }[]).map((tag) => tag.id)));
    expect(new Set(included.filter((resource) => resource.type === 'tag').map((tag) => tag.id))).toEqual(tagIds);
    const chapterIds = body.data!.flatMap((story) => (story.relationships!.chapters!.data as { id: string }[]).map((chapter) => chapter.id));
    expect(included.filter((resource) => resource.type === 'chapter').map((chapter) => chapter.id).sort()).toEqual([...chapterIds].sort());
    expect(new Set(included.map((resource) => `${resource.type}:${resource.id}`)).size).toBe(included.length);
    expect(included.find((resource) => resource.type === 'chapter')?.attributes).not.toHaveProperty('content');
    expect(included.find((resource) => resource.type === 'tag')).not.toHaveProperty('links');
  });

  it('narrows attributes and relationships with fields, in data and in included', async () => {
    const body = ok(await api('GET', `/stories/${publishedStory.id}?include=author&fields[story]=title,author&fields[user]=name`));
    expect(body.data!.attributes).toEqual({ title: publishedStory.attributes.title });
    expect(Object.keys(body.data!.relationships!)).toEqual(['author']);
    expect(body.included).toEqual([{ id: writer.id, type: 'user', attributes: { name: writer.name }, links: { self: `${stack.origin}/api/v1/users/${writer.id}` } }]);
  });

  it('returns chapter content only when fields[chapter] names it', async () => {
    const plain = ok(await api('GET', `/chapters/${publishedChapterId}`)).data!;
    expect(plain.attributes).not.toHaveProperty('content');
    expect(plain.attributes).not.toHaveProperty('content_html');
    expect(plain.attributes).toHaveProperty('title');
    const withHtml = ok(await api('GET', `/chapters/${publishedChapterId}?fields[chapter]=title,content_html`)).data!;
    expect(Object.keys(withHtml.attributes).sort()).toEqual(['content_html', 'title']);
    expect(withHtml.attributes.content_html).toContain('word');
    const withContent = ok(await api('GET', `/chapters/${publishedChapterId}?fields[chapter]=content&include=story.author`));
    expect(withContent.data!.attributes).toEqual({ content: expect.stringMatching(/^word( word)*$/) });
    expect(withContent.included!.map((resource) => `${resource.type}:${resource.id}`)).toEqual([`story:${publishedStory.id}`, `user:${writer.id}`]);
  });

  it('rejects unknown includes and fields, and chapter content where chapters are listed', async () => {
    expectError(await api('GET', '/stories?include=comments'), 400, 'invalid_include', { parameter: 'include' });
    expectError(await api('GET', `/chapters/${publishedChapterId}?include=story.chapters`), 400, 'invalid_include', { parameter: 'include' });
    expectError(await api('GET', '/stories?fields[story]=title,body'), 400, 'invalid_fields', { parameter: 'fields[story]' });
    expectError(await api('GET', '/stories?fields[bookshelf]=name'), 400, 'invalid_fields', { parameter: 'fields[bookshelf]' });
    expectError(await api('GET', `/stories/${publishedStory.id}?include=chapters&fields[chapter]=content`), 400, 'invalid_fields', { parameter: 'fields[chapter]' });
  });

  it('lists a story chapters in order and tags without links', async () => {
    const chapters = ok(await api('GET', `/stories/${publishedStory.id}/chapters?include=story`));
    expect(chapters.data!.map((chapter) => chapter.attributes.chapter_number)).toEqual([1]);
    expect(chapters.included!.map((resource) => resource.id)).toEqual([publishedStory.id]);
    const tags = ok(await api('GET', '/tags?sort=name&page[size]=3'));
    const names = tags.data!.map((tag) => tag.attributes.name as string);
    expect(names).toEqual([...names].sort());
    expect(tags.data![0]!.links).toBeUndefined();
  });
});

describe('pagination', () => {
  it('rejects bad page sizes', async () => {
    for (const size of ['0', '-1', '2.5', 'ten', '101']) {
      expectError(await api('GET', `/stories?page[size]=${size}`), 400, 'invalid_parameter', { parameter: 'page[size]' });
    }
    expectError(await api('GET', '/stories?page[number]=2'), 400, 'invalid_parameter', { parameter: 'page[number]' });
  });

  it('binds a cursor to its query and caller, lets page[size] change, and expires it', async () => {
    const first = ok(await api('GET', `/stories?filter[author]=${writer.id}&sort=num_words&page[size]=2`));
    const next = first.links!.next!;
    expect(first.links!.first).toBe(`${stack.origin}/api/v1/stories?filter[author]=${writer.id}&sort=num_words&page[size]=2`);
    const cursor = new URL(next).searchParams.get('page[cursor]')!;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const key = `${stack.system.redisKeyPrefix}inkwell:cursor:${cursor}`;
    expect(await redis.ttl(key)).toBeGreaterThan(3500);

    expect(ok(await api('GET', next)).data).toHaveLength(2);
    expect(ok(await api('GET', next.replace('page[size]=2', 'page[size]=5'))).data).toHaveLength(5);
    expectError(await api('GET', next.replace('sort=num_words', 'sort=-num_words')), 400, 'invalid_cursor', { parameter: 'page[cursor]' });
    expectError(await api('GET', next.replace(`filter[author]=${writer.id}`, `filter[author]=${other.id}`)), 400, 'invalid_cursor');
    expectError(await api('GET', `${next}&query=${TERM}`), 400, 'invalid_cursor');
    expectError(await api('GET', next, { token: other.token }), 400, 'invalid_cursor');
    expectError(await api('GET', next, { token: appToken }), 400, 'invalid_cursor');
    expectError(await api('GET', `/users/${writer.id}/stories?page[cursor]=${cursor}`), 400, 'invalid_cursor');
    expectError(await api('GET', '/stories?page[cursor]=AAAAAAAAAAAAAAAAAAAAAA'), 400, 'invalid_cursor');

    await redis.pexpire(key, 1);
    await eventually(async () => (await redis.exists(key)) === 0, { intervalMs: 5, what: 'the cursor to expire' });
    expectError(await api('GET', next), 400, 'invalid_cursor', { parameter: 'page[cursor]' });
  });

  it('walks a list to its end: no next on the last page', async () => {
    const seen: string[] = [];
    let url: string | undefined = `/stories?filter[author]=${writer.id}&page[size]=5`;
    while (url !== undefined) {
      const body = ok(await api('GET', url));
      seen.push(...idsOf(body.data!));
      url = body.links?.next;
    }
    expect(seen).toEqual(idsOf([...corpus].sort(compareBy('date_published', true))));
  });

  it.each([
    ['num_words', false],
    ['date_published', true],
    ['date_published', false],
  ] as const)('returns every matching story exactly once, in order, with random page sizes while stories are published (sort %s, descending %s)', async (field, descending) => {
    const filter = `filter[author]=${writer.id}&filter[num_words]=10,60`;
    await searchCaughtUp();
    const before = ok(await api('GET', `/stories?${filter}&page[size]=100&sort=${descending ? '-' : ''}${field}`)).data!;
    let publishing = true;
    const published: Resource[] = [];
    const publisher = (async () => {
      let n = 0;
      while (publishing) published.push(await publish(writer, { title: `Concurrent ${field} ${n++}`, words: 10 + ((n * 7) % 50) }));
    })();

    const walked: Resource[] = [];
    try {
      let url: string | undefined = `/stories?${filter}&sort=${descending ? '-' : ''}${field}&page[size]=${1 + Math.floor(Math.random() * 4)}`;
      while (url !== undefined) {
        const body = ok(await api('GET', url));
        walked.push(...body.data!);
        url = body.links?.next?.replace(/page\[size\]=\d+/, `page[size]=${1 + Math.floor(Math.random() * 4)}`);
      }
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
    expect(ok(await api('GET', `/stories/${draft.id}`, { token: writer.token })).data!.attributes.published).toBe(false);
    expectError(await api('GET', `/stories/${blindDraft.id}`, { token: blindWriter.token }), 403, 'insufficient_scope');
    expectError(await api('GET', `/stories/${draft.id}`, { token: other.token }), 404, 'not_found');
    expectError(await api('GET', `/stories/${draft.id}`, { token: appToken }), 404, 'not_found');
    expectError(await api('GET', `/stories/${draft.id}`), 404, 'not_found');
    expect(ok(await api('GET', `/stories/${publishedStory.id}`, { token: appToken })).data!.id).toBe(publishedStory.id);
  });

  it('applies the same rules to chapter lists and chapters by id', async () => {
    expect(idsOf(ok(await api('GET', `/stories/${draft.id}/chapters`, { token: writer.token })).data!)).toEqual([draftChapterId]);
    expectError(await api('GET', `/stories/${blindDraft.id}/chapters`, { token: blindWriter.token }), 403, 'insufficient_scope');
    expectError(await api('GET', `/stories/${draft.id}/chapters`, { token: other.token }), 404, 'not_found');
    expectError(await api('GET', `/stories/${draft.id}/chapters`, { token: appToken }), 404, 'not_found');

    const ownList = idsOf(ok(await api('GET', `/stories/${publishedStory.id}/chapters`, { token: writer.token })).data!);
    expect(ownList).toEqual([publishedChapterId, draftChapterInPublished]);
    for (const token of [other.token, appToken, reader.token]) {
      expect(idsOf(ok(await api('GET', `/stories/${publishedStory.id}/chapters`, { token })).data!)).toEqual([publishedChapterId]);
    }

    expect(ok(await api('GET', `/chapters/${draftChapterInPublished}`, { token: writer.token })).data!.id).toBe(draftChapterInPublished);
    expect(ok(await api('GET', `/chapters/${draftChapterId}`, { token: writer.token })).data!.id).toBe(draftChapterId);
    expectError(await api('GET', `/chapters/${draftChapterInPublished}`, { token: other.token }), 404, 'not_found');
    expectError(await api('GET', `/chapters/${draftChapterId}`, { token: appToken }), 404, 'not_found');
    expect(ok(await api('GET', `/chapters/${publishedChapterId}`, { token: appToken })).data!.id).toBe(publishedChapterId);
  });

  it('lists drafts on /users/:id/stories only for the author with read_stories', async () => {
    const ownStories = ok(await api('GET', `/users/me/stories?page[size]=100`, { token: writer.token })).data!;
    expect(idsOf(ownStories)).toContain(draft.id);
    const firstDraft = ownStories.findIndex((story) => story.attributes.date_published === null);
    expect(ownStories.slice(firstDraft).every((story) => story.attributes.date_published === null), 'never-published stories last').toBe(true);
    expectOrdered(ownStories.slice(0, firstDraft), 'date_published', true);
    expect(idsOf(ok(await api('GET', `/users/me/stories?filter[published]=false&page[size]=100`, { token: writer.token })).data!)).toContain(draft.id);
    expect(ok(await api('GET', `/users/me/stories?filter[published]=true&page[size]=100`, { token: writer.token })).data!.every((story) => story.attributes.published === true)).toBe(true);

    expect(idsOf(ok(await api('GET', `/users/${blindWriter.id}/stories`, { token: blindWriter.token })).data!)).not.toContain(blindDraft.id);
    expectError(await api('GET', `/users/me/stories?filter[published]=false`, { token: blindWriter.token }), 403, 'insufficient_scope');

    for (const token of [other.token, appToken, reader.token]) {
      const theirs = idsOf(ok(await api('GET', `/users/${writer.id}/stories?page[size]=100`, { token })).data!);
      expect(theirs).not.toContain(draft.id);
      expect(sortIds(theirs)).toEqual(expect.arrayContaining(sortIds(idsOf(corpus))));
      expect(ok(await api('GET', `/users/${writer.id}/stories?filter[published]=false`, { token })).data).toEqual([]);
    }
    expectError(await api('GET', '/users/me/stories', { token: appToken }), 401, 'invalid_token');
  });

  it('never lists drafts in search, whoever asks', async () => {
    for (const token of [writer.token, other.token, appToken]) {
      const found = idsOf(ok(await api('GET', `/stories?filter[ids]=${draft.id},${publishedStory.id}`, { token })).data!);
      expect(found).toEqual([publishedStory.id]);
      expect(idsOf(ok(await api('GET', `/stories?query=${encodeURIComponent('Unfinished draft')}&filter[author]=${writer.id}`, { token })).data!)).toEqual([]);
    }
  });

  it('needs a token for every read', async () => {
    const answer = await api('GET', '/stories', { token: null });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="inkwell"');
    expect(byId(publishedStory.id)).toBeDefined();
  });
});

import type { components, operations } from '@inkwell/client';
import { createTestUser, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { eventually, expectError, JsonApiClient, ok, walkPages } from './support/json-api-client.js';

/**
 * Excluded tags and content ratings on GET /stories (docs/api/stories.md, "GET /stories"):
 * `filter[tags]=-g:3` and `filter[content_rating]=teen,mature`, from the search index and from a
 * shelf's copy, with every other filter, query, sort and facet.
 */

const DATABASE = 'inkwell_test_gateway_story_exclusions';
/** A search word that appears nowhere but in this file's stories. */
const TERM = 'quillmarsh';

let stack: GatewayStack;
let client: JsonApiClient;
let writer: TestUser;
let owner: TestUser;
let reader: TestUser;
/** Two genres and a character of the catalogue. */
let [genreA, genreB, character] = ['', '', ''];

type Story = components['schemas']['StoryResource'];
type StoryList = NonNullable<operations['getStories']['parameters']['query']>;
type Rating = 'everyone' | 'teen' | 'mature';

/** The writer's published stories with what they carry. */
const stories: { id: string; tags: string[]; rating: Rating; title: string }[] = [];
let draft: Story;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  [writer, owner, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system, { scopes: ['read_bookshelves', 'write_bookshelves'] }),
    createTestUser(stack.system),
  ]);
  const tags = (kind: string) => client.as().GET('/tags', { params: { query: { 'filter[kind]': kind as 'genre', 'page[size]': 2 } } });
  [genreA, genreB] = ok(await tags('genre')).data.map((tag) => tag.id) as [string, string];
  character = ok(await tags('character')).data[0]!.id;

  const plan: [string[], Rating][] = [
    [[genreA], 'everyone'],
    [[genreA, genreB], 'teen'],
    [[genreB], 'mature'],
    [[genreB, character], 'everyone'],
    [[character], 'teen'],
    [[], 'mature'],
  ];
  for (const [index, [tagIds, rating]] of plan.entries()) {
    const title = `Tale ${index}${index % 2 === 0 ? ` ${TERM}` : ''}`;
    stories.push({ id: (await publish(title, tagIds, rating)).id, tags: tagIds, rating, title });
  }
  draft = await createStory('A mature draft', [genreB], 'mature');
  await indexCaughtUp();
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

const api = (token?: string | null) => client.as(token);
const raw = (path: string) => client.call('GET', path, { token: reader.token });

async function createStory(title: string, tags: string[], rating: Rating): Promise<Story> {
  const relationships = { tags: { data: tags.map((id) => ({ type: 'tag' as const, id })) } };
  return ok(await api(writer.token).POST('/stories', { body: { data: { type: 'story', attributes: { title, content_rating: rating }, relationships } } }), 201).data;
}

async function publish(title: string, tags: string[], rating: Rating): Promise<Story> {
  const story = await createStory(title, tags, rating);
  const chapter = { data: { type: 'chapter' as const, attributes: { title: 'One', content: 'words', published: true } } };
  ok(await api(writer.token).POST('/stories/{id}/chapters', { params: { path: { id: story.id } }, body: chapter }), 201);
  return ok(await api(writer.token).PATCH('/stories/{id}', { params: { path: { id: story.id } }, body: { data: { type: 'story', id: story.id, attributes: { published: true } } } })).data;
}

async function setRating(id: string, rating: Rating): Promise<void> {
  ok(await api(writer.token).PATCH('/stories/{id}', { params: { path: { id } }, body: { data: { type: 'story', id, attributes: { content_rating: rating } } } }));
  stories.find((story) => story.id === id)!.rating = rating;
}

/** Every page of GET /stories restricted to the writer's stories. */
const listed = (query: StoryList, token?: string): Promise<string[]> =>
  walkPages((next) => api(token).GET('/stories', { params: { query: { 'filter[author]': writer.id, 'page[size]': 2, ...query } }, ...next })).then((items) => items.map((item) => item.id));
/** The writer's published stories passing `keep`, newest first (the default sort). */
const expected = (keep: (story: (typeof stories)[number]) => boolean) => stories.filter(keep).map((story) => story.id).reverse();
const carries = (tag: string) => (story: (typeof stories)[number]) => story.tags.includes(tag);

/** Waits until the search index holds every story with its current rating. */
async function indexCaughtUp(): Promise<void> {
  for (const rating of ['everyone', 'teen', 'mature'] as const) {
    const want = expected((story) => story.rating === rating);
    await eventually(() => listed({ 'filter[content_rating]': rating }), (ids) => JSON.stringify(ids) === JSON.stringify(want), `the index to hold the ${rating} stories`);
  }
}

describe('filter[tags] with exclusions', () => {
  it('leaves out stories carrying any excluded tag, alone or with required tags', async () => {
    expect(await listed({ 'filter[tags]': `-${genreA}` })).toEqual(expected((story) => !carries(genreA)(story)));
    expect(await listed({ 'filter[tags]': `-${genreA},-${character}` })).toEqual(expected((story) => !carries(genreA)(story) && !carries(character)(story)));
    expect(await listed({ 'filter[tags]': `${genreB},-${genreA}` })).toEqual(expected((story) => carries(genreB)(story) && !carries(genreA)(story)));
    // Order and repetition do not matter; a tag both required and excluded matches nothing.
    expect(await listed({ 'filter[tags]': `-${genreA},${genreB},-${genreA}` })).toEqual(await listed({ 'filter[tags]': `${genreB},-${genreA}` }));
    expect(await listed({ 'filter[tags]': `${genreA},-${genreA}` })).toEqual([]);
  });

  it('keeps meta.total and meta.facets to the stories left, with a query and another sort', async () => {
    const query: StoryList = { 'filter[author]': writer.id, 'filter[tags]': `-${genreA}`, query: TERM, sort: 'date_published', facets: 'tags', 'page[size]': 100 };
    const body = ok(await api().GET('/stories', { params: { query } }));
    const left = stories.filter((story) => !carries(genreA)(story) && story.title.includes(TERM));
    expect(body.data.map((story) => story.id)).toEqual(left.map((story) => story.id));
    expect(body.meta).toMatchObject({ total: left.length, total_is_lower_bound: false });
    const counts: Record<string, number> = {};
    for (const story of left) for (const tag of story.tags) counts[tag] = (counts[tag] ?? 0) + 1;
    const facets = (body.meta as { facets: { tags: Record<string, number> } }).facets.tags;
    expect(facets).toEqual(counts);
    expect(facets).not.toHaveProperty(genreA);
  });
});

describe('filter[content_rating]', () => {
  it('keeps the stories of any of the ratings, never a draft, and follows a change of rating', async () => {
    expect(await listed({ 'filter[content_rating]': 'mature' })).toEqual(expected((story) => story.rating === 'mature'));
    expect(await listed({ 'filter[content_rating]': 'teen,everyone' })).toEqual(expected((story) => story.rating !== 'mature'));
    expect(await listed({ 'filter[content_rating]': 'everyone,teen,mature' })).toEqual(expected(() => true));
    expect(await listed({ 'filter[content_rating]': 'mature' })).not.toContain(draft.id);
    const combined = await listed({ 'filter[content_rating]': 'everyone,mature', 'filter[tags]': `-${character}`, sort: '-num_words' });
    expect([...combined].sort()).toEqual(expected((story) => story.rating !== 'teen' && !carries(character)(story)).sort());

    const moved = stories[0]!;
    await setRating(moved.id, 'mature');
    await indexCaughtUp();
    expect(await listed({ 'filter[content_rating]': 'mature' })).toContain(moved.id);
    await setRating(moved.id, 'everyone');
    await indexCaughtUp();
  });

  it('refuses malformed values with 400 invalid_parameter naming the filter', async () => {
    for (const value of ['adult', 'teen,adult', '', 'teen,', 'Teen', 'everyone,teen,mature,teen']) {
      expectError(await raw(`/stories?filter[content_rating]=${encodeURIComponent(value)}`), 400, 'invalid_parameter', { parameter: 'filter[content_rating]' });
    }
    for (const value of [`-${genreA.replace(':', '')}`, `--${genreA}`, '-', `${genreA},-`, '-x:1', `-${genreA} `]) {
      expectError(await raw(`/stories?filter[tags]=${encodeURIComponent(value)}`), 400, 'invalid_parameter', { parameter: 'filter[tags]' });
    }
    const many = Array.from({ length: 101 }, (_, i) => `${i % 2 === 0 ? '-' : ''}g:${i + 1}`).join(',');
    expectError(await raw(`/stories?filter[tags]=${encodeURIComponent(many)}`), 400, 'invalid_parameter', { parameter: 'filter[tags]' });
  });
});

describe('on a shelf', () => {
  it('applies exclusions and ratings to the shelf copy under every sort, with a query, and follows a change at once', async () => {
    const shelf = ok(await api(owner.token).POST('/users/{id}/bookshelves', { params: { path: { id: 'me' } }, body: { data: { type: 'bookshelf', attributes: { name: 'Mixed', privacy: 'private' } } } }), 201).data;
    for (const story of stories) {
      const body = { data: { type: 'bookshelf_item' as const, attributes: {}, relationships: { story: { data: { type: 'story' as const, id: story.id } } } } };
      ok(await api(owner.token).POST('/bookshelves/{id}/items', { params: { path: { id: shelf.id } }, body }), 201);
    }
    const onShelf = (query: StoryList) =>
      walkPages((next) => api(owner.token).GET('/stories', { params: { query: { 'filter[bookshelf]': shelf.id, 'page[size]': 2, ...query } }, ...next })).then((items) => items.map((item) => item.id).sort());
    const all = stories.map((story) => story.id).sort();
    await eventually(() => onShelf({}), (ids) => JSON.stringify(ids) === JSON.stringify(all), 'the shelf copy to hold the items');

    const notA = expected((story) => !carries(genreA)(story)).sort();
    for (const sort of ['-date_added', 'date_added', '-date_published', 'rating', '-hotness'] as const) {
      expect(await onShelf({ 'filter[tags]': `-${genreA}`, sort }), sort).toEqual(notA);
      expect(await onShelf({ 'filter[content_rating]': 'teen', sort }), sort).toEqual(expected((story) => story.rating === 'teen').sort());
    }
    expect(await onShelf({ 'filter[tags]': `${genreB},-${character}`, 'filter[content_rating]': 'teen,mature' })).toEqual(
      expected((story) => carries(genreB)(story) && !carries(character)(story) && story.rating !== 'everyone').sort(),
    );
    expect(await onShelf({ 'filter[tags]': `-${genreA}`, query: TERM, sort: '-relevance' })).toEqual(expected((story) => !carries(genreA)(story) && story.title.includes(TERM)).sort());

    // The shelf copy follows a change of rating in the transaction of the change.
    const moved = stories[4]!;
    await setRating(moved.id, 'mature');
    expect(await onShelf({ 'filter[content_rating]': 'mature', sort: '-date_added' })).toContain(moved.id);
    await setRating(moved.id, 'teen');
    expect(await onShelf({ 'filter[content_rating]': 'mature', sort: '-date_added' })).not.toContain(moved.id);
  });
});

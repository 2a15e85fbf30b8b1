import type { components, operations } from '@inkwell/client';
import { createAppToken, createTestUser, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, eventually, expectError, follow, JsonApiClient, ok, walkPages, type Answer, type Resource } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_bookshelves';
/** A search word that appears nowhere but in this file's stories. */
const TERM = 'quillfrond';
const BEARER_INVALID = 'Bearer realm="inkwell", error="invalid_token"';

let stack: GatewayStack;
let client: JsonApiClient;
/** Owns shelves, with every bookshelf and story scope. */
let owner: TestUser;
/** Owns shelves but lacks read_bookshelves (write_bookshelves only). */
let blind: TestUser;
/** Another user with every bookshelf scope: still no access to the owner's private shelves. */
let other: TestUser;
/** Writes the stories that are shelved. */
let writer: TestUser;
/** No scopes at all. */
let reader: TestUser;
let appToken: string;
let genres: string[];
let characters: string[];

/** What the test knows of each published story, to compute what a filter must answer. */
interface StoryFacts {
  id: string;
  authorId: string;
  words: number;
  status: string;
  tags: string[];
  searchable: boolean;
}
const facts = new Map<string, StoryFacts>();
let draft: Resource;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  [owner, blind, other, writer, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['read_bookshelves', 'write_bookshelves', 'write_stories', 'read_stories'] }),
    createTestUser(stack.system, { scopes: ['write_bookshelves'] }),
    createTestUser(stack.system, { scopes: ['read_bookshelves', 'write_bookshelves', 'read_stories'] }),
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system),
  ]);
  appToken = (await createAppToken(stack.system)).token;
  genres = ok(answer(await client.typed.GET('/tags', { params: { query: { 'filter[kind]': 'genre', 'page[size]': 2 } }, ...bearer() }))).data!.map((tag) => tag.id);
  characters = ok(answer(await client.typed.GET('/tags', { params: { query: { 'filter[kind]': 'character', 'page[size]': 1 } }, ...bearer() }))).data!.map((tag) => tag.id);
  draft = await createStory(writer, { title: 'Unpublished draft' });
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

/** A raw request: for what the API document cannot express (malformed paths, parameters and bodies sent on purpose). */
const api = (method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<Answer> => client.call(method, path, options);
/** The headers of a typed call (client.typed, checked against the API document) as `token`. */
const bearer = (token?: string | null) => ({ headers: client.auth(token) });
type ShelfAttributes = components['schemas']['PostUsersByIdBookshelvesRequest']['data']['attributes'];
const idsOf = (resources: readonly { id: string }[]): string[] => resources.map((resource) => resource.id);

interface StoryInput {
  title: string;
  words?: number;
  status?: 'complete' | 'incomplete' | 'on-hiatus' | 'cancelled';
  tags?: string[];
}

async function createStory(user: TestUser, input: StoryInput): Promise<Resource> {
  const body = {
    data: {
      type: 'story' as const,
      attributes: { title: input.title, ...(input.status === undefined ? {} : { status: input.status }) },
      relationships: { tags: { data: (input.tags ?? []).map((id) => ({ type: 'tag' as const, id })) } },
    },
  };
  return ok(answer(await client.typed.POST('/stories', { body, ...bearer(user.token) })), 201).data!;
}

/** A published story with one chapter of `words` words, remembered in `facts`. */
async function publish(user: TestUser, input: StoryInput): Promise<string> {
  const words = input.words ?? 10;
  const story = await createStory(user, input);
  const chapter = { data: { type: 'chapter' as const, attributes: { title: 'One', content: 'word '.repeat(words).trim(), published: true } } };
  ok(answer(await client.typed.POST('/stories/{id}/chapters', { params: { path: { id: story.id } }, body: chapter, ...bearer(user.token) })), 201);
  const publishing = { data: { type: 'story' as const, id: story.id, attributes: { published: true } } };
  ok(answer(await client.typed.PATCH('/stories/{id}', { params: { path: { id: story.id } }, body: publishing, ...bearer(user.token) })));
  facts.set(story.id, { id: story.id, authorId: user.id, words, status: input.status ?? 'incomplete', tags: input.tags ?? [], searchable: input.title.includes(TERM) });
  return story.id;
}

const shelfBody = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ data: { type: 'bookshelf', ...extra, attributes } });
const itemBody = (storyId: string, attributes: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  data: { type: 'bookshelf_item', ...extra, attributes, relationships: { story: { data: { type: 'story', id: storyId } } } },
});
const readBody = (itemId: string, read: unknown) => ({ data: { type: 'bookshelf_item', id: itemId, attributes: { read } } });

async function createShelf(user: TestUser, attributes: ShelfAttributes): Promise<Resource> {
  return ok(answer(await client.typed.POST('/users/{id}/bookshelves', { params: { path: { id: 'me' } }, body: { data: { type: 'bookshelf', attributes } }, ...bearer(user.token) })), 201).data!;
}

async function addItem(user: TestUser, shelfId: string, storyId: string, read?: boolean): Promise<Resource> {
  const body = { data: { type: 'bookshelf_item' as const, attributes: read === undefined ? {} : { read }, relationships: { story: { data: { type: 'story' as const, id: storyId } } } } };
  return ok(answer(await client.typed.POST('/bookshelves/{id}/items', { params: { path: { id: shelfId } }, body, ...bearer(user.token) })), 201).data!;
}

const shelf = async (id: string, token = owner.token): Promise<Resource> => ok(answer(await client.typed.GET('/bookshelves/{id}', { params: { path: { id } }, ...bearer(token) }))).data!;
const itemStoryIds = async (shelfId: string, token = owner.token): Promise<string[]> =>
  (await walkPages((next) => client.as(token).GET('/bookshelves/{id}/items', { params: { path: { id: shelfId }, query: { 'page[size]': 100 } }, ...next }))).map((item) => item.relationships!.story!.data!.id);
/** Every shelf of user `id` (or `me`) that `token` sees, page by page. */
const shelvesOf = (id: string, token: string) => walkPages((next) => client.as(token).GET('/users/{id}/bookshelves', { params: { path: { id } }, ...next }));
type StoryList = NonNullable<operations['getStories']['parameters']['query']>;

/** Story ids of GET /stories with `query` (every page), as `token`. */
async function storyIds(query: StoryList, token = owner.token): Promise<string[]> {
  return idsOf(await walkPages((next) => client.as(token).GET('/stories', { params: { query: { 'page[size]': 100, ...query } }, ...next })));
}

/** Waits until the stories service's copy of shelf membership answers `expected` for `query`. */
async function shelfStories(query: StoryList, expected: readonly string[], token = owner.token): Promise<string[]> {
  return eventually(() => storyIds(query, token), (ids) => JSON.stringify(ids) === JSON.stringify(expected), `GET /stories ${JSON.stringify(query)}`);
}

describe('POST /users/:id/bookshelves', () => {
  it('creates the caller\'s shelf: 201 with Location and links.self, the defaults of docs/api/bookshelves.md, and counts for the owner', async () => {
    const posted = answer(await client.typed.POST('/users/{id}/bookshelves', { params: { path: { id: 'me' } }, body: { data: { type: 'bookshelf', attributes: { name: 'Favourites' } } }, ...bearer(owner.token) }));
    const created = ok(posted, 201).data!;
    expect(posted.headers.get('location')).toBe(`${stack.system.apiUrl}/bookshelves/${created.id}`);
    expect(posted.body.links?.self).toBe(posted.headers.get('location'));
    expect(created.links?.self).toBe(posted.headers.get('location'));
    expect(created.attributes).toMatchObject({ name: 'Favourites', description: '', privacy: 'private', color: '#3366cc', num_stories: 0, num_unread: 0 });
    expect(created.attributes.date_created).toMatch(/Z$/);
    expect(created.relationships?.user?.data).toEqual({ type: 'user', id: owner.id });

    const second = { data: { type: 'bookshelf' as const, attributes: { name: 'Second', description: 'Plain', privacy: 'public' as const, color: '#a0b1c2', order: 7 } } };
    const byId = ok(answer(await client.typed.POST('/users/{id}/bookshelves', { params: { path: { id: owner.id } }, body: second, ...bearer(owner.token) })), 201).data!;
    expect(byId.attributes).toMatchObject({ name: 'Second', description: 'Plain', privacy: 'public', color: '#a0b1c2', order: 7 });
  });

  it('answers every bad body with its status and code', async () => {
    const post = (body: unknown) => api('POST', '/users/me/bookshelves', { token: owner.token, body });
    expectError(await post(shelfBody({})), 422, 'validation_failed', { pointer: '/data/attributes/name' });
    expectError(await post(shelfBody({ name: '   ' })), 422, 'validation_failed', { pointer: '/data/attributes/name' });
    expectError(await post(shelfBody({ name: 'x'.repeat(201) })), 422, 'validation_failed', { pointer: '/data/attributes/name' });
    expect(ok(await post(shelfBody({ name: '📚'.repeat(200) })), 201).data!.attributes.name).toBe('📚'.repeat(200));
    expectError(await post(shelfBody({ name: 'Colours', color: 'red' })), 422, 'validation_failed', { pointer: '/data/attributes/color' });
    expectError(await post(shelfBody({ name: 'Colours', color: '#12345' })), 422, 'validation_failed', { pointer: '/data/attributes/color' });
    expectError(await post(shelfBody({ name: 'Hidden', privacy: 'secret' })), 422, 'validation_failed', { pointer: '/data/attributes/privacy' });
    expectError(await post(shelfBody({ name: 'Ordered', order: 1.5 })), 422, 'validation_failed', { pointer: '/data/attributes/order' });
    expectError(await post(shelfBody({ name: 'Counted', num_stories: 3 })), 422, 'validation_failed', { pointer: '/data/attributes/num_stories' });
    expectError(await post({ data: { type: 'story', attributes: { name: 'Typed' } } }), 409, 'conflict', { pointer: '/data/type' });
    expectError(await post(shelfBody({ name: 'Chosen' }, { id: '77' })), 403, 'forbidden', { pointer: '/data/id' });
    expectError(await post({ data: [] }), 400, 'invalid_body');
  });

  it('needs write_bookshelves and a user, and :id must be the caller', async () => {
    const create = async (id: string, token: string | null) => answer(await client.as(token).POST('/users/{id}/bookshelves', { params: { path: { id } }, body: { data: { type: 'bookshelf', attributes: { name: 'Nope' } } } }));
    const noScope = await create('me', reader.token);
    expectError(noScope, 403, 'insufficient_scope');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="write_bookshelves"');
    expectError(await create(owner.id, other.token), 403, 'forbidden');
    // An app-only token cannot act as a user (403); on a `me` path there is no user to stand for (401, docs/api/auth.md).
    expectError(await create(owner.id, appToken), 403, 'forbidden');
    const appMe = await create('me', appToken);
    expectError(appMe, 401, 'invalid_token');
    expect(appMe.headers.get('www-authenticate')).toBe(BEARER_INVALID);
    expect((await create('me', null)).status).toBe(401);
    const listed = ok(await client.as(owner.token).GET('/users/{id}/bookshelves', { params: { path: { id: owner.id }, query: { 'page[size]': 100 } } }));
    expect(listed.data.map((found) => found.attributes.name)).not.toContain('Nope');
  });
});

describe('who sees and changes which shelf', () => {
  let publicShelf: Resource;
  let privateShelf: Resource;
  let blindPrivate: Resource;
  let blindPublic: Resource;
  let storyId: string;

  beforeAll(async () => {
    storyId = await publish(writer, { title: 'Shelved for visibility' });
    publicShelf = await createShelf(owner, { name: 'Open shelf', privacy: 'public', order: 1 });
    privateShelf = await createShelf(owner, { name: 'Closed shelf', privacy: 'private', order: 2 });
    blindPrivate = await createShelf(blind, { name: 'Blind private', privacy: 'private' });
    blindPublic = await createShelf(blind, { name: 'Blind public', privacy: 'public' });
    for (const target of [publicShelf, privateShelf]) await addItem(owner, target.id, storyId);
    await addItem(blind, blindPublic.id, storyId);
    await addItem(blind, blindPrivate.id, storyId);
  });

  it('GET /bookshelves/:id and its items: public for every token, private for the owner with read_bookshelves only', async () => {
    const cases: [string, () => Resource, string | null, number, string?][] = [
      ['public / owner', () => publicShelf, owner.token, 200],
      ['public / other user', () => publicShelf, other.token, 200],
      ['public / no scopes', () => publicShelf, reader.token, 200],
      ['public / app-only', () => publicShelf, appToken, 200],
      ['public / anonymous', () => publicShelf, null, 401, 'invalid_token'],
      ['private / owner', () => privateShelf, owner.token, 200],
      ['private / other user', () => privateShelf, other.token, 404, 'not_found'],
      ['private / no scopes', () => privateShelf, reader.token, 404, 'not_found'],
      ['private / app-only', () => privateShelf, appToken, 404, 'not_found'],
      ['private / anonymous', () => privateShelf, null, 401, 'invalid_token'],
      ['own private without read_bookshelves', () => blindPrivate, blind.token, 403, 'insufficient_scope'],
      ['own public without read_bookshelves', () => blindPublic, blind.token, 200],
    ];
    for (const [label, target, token, status, code] of cases) {
      const params = { params: { path: { id: target().id } } };
      for (const [path, seen] of [
        ['/bookshelves/:id', answer(await client.as(token).GET('/bookshelves/{id}', params))],
        ['/bookshelves/:id/items', answer(await client.as(token).GET('/bookshelves/{id}/items', params))],
      ] as const) {
        expect([seen.status, seen.body.errors?.[0]?.code], `${label}: GET ${path}`).toEqual([status, code]);
        if (code === 'insufficient_scope') expect(seen.headers.get('www-authenticate')).toContain('scope="read_bookshelves"');
      }
    }
    expectError(await client.as().GET('/bookshelves/{id}', { params: { path: { id: '987654321' } } }), 404, 'not_found');
    expectError(await client.as().GET('/bookshelves/{id}', { params: { path: { id: 'abc' } } }), 404, 'not_found');
  });

  it('num_unread is the owner\'s alone', async () => {
    expect((await shelf(publicShelf.id, owner.token)).attributes).toMatchObject({ num_stories: 1, num_unread: 1 });
    for (const token of [other.token, reader.token, appToken]) {
      const seen = await shelf(publicShelf.id, token);
      expect(seen.attributes.num_stories).toBe(1);
      expect(seen.attributes).not.toHaveProperty('num_unread');
    }
  });

  it('GET /users/:id/bookshelves lists private shelves to their owner with read_bookshelves only; `me` needs a user token', async () => {
    const names = async (id: string, token: string) => (await shelvesOf(id, token)).map((found) => found.attributes.name);
    expect(await names(owner.id, owner.token)).toEqual(expect.arrayContaining(['Open shelf', 'Closed shelf']));
    expect(await names('me', owner.token)).toEqual(await names(owner.id, owner.token));
    for (const token of [other.token, reader.token, appToken]) {
      const seen = await names(owner.id, token);
      expect(seen).toContain('Open shelf');
      expect(seen).not.toContain('Closed shelf');
    }
    expect(await names('me', blind.token)).toEqual(['Blind public']);
    const appMe = answer(await client.as(appToken).GET('/users/{id}/bookshelves', { params: { path: { id: 'me' } } }));
    expectError(appMe, 401, 'invalid_token');
    expect(appMe.headers.get('www-authenticate')).toBe(BEARER_INVALID);
    expect((await client.as(null).GET('/users/{id}/bookshelves', { params: { path: { id: owner.id } } })).response.status).toBe(401);
    expectError(await api('GET', '/users/me/bookshelves?filter[name]=x', { token: owner.token }), 400, 'invalid_parameter', { parameter: 'filter[name]' });
    expectError(await api('GET', '/users/me/bookshelves?sort=name', { token: owner.token }), 400, 'invalid_sort', { parameter: 'sort' });
  });

  it('refuses an invalid body for someone who may not write: others 403 forbidden (404 when private or unknown), another user\'s POST 403', async () => {
    const invalid = { name: 'x'.repeat(201), color: 'blue' };
    const patch = (target: string, token: string) => api('PATCH', `/bookshelves/${target}`, { token, body: shelfBody(invalid, { id: target }) });
    expectError(await patch(publicShelf.id, other.token), 403, 'forbidden');
    expectError(await patch(privateShelf.id, other.token), 404, 'not_found');
    expectError(await patch('987654321', owner.token), 404, 'not_found');
    expectError(await api('POST', `/users/${owner.id}/bookshelves`, { token: other.token, body: shelfBody(invalid) }), 403, 'forbidden');
    // The owner hears about the values themselves.
    expectError(await patch(publicShelf.id, owner.token), 422, 'validation_failed', { pointer: '/data/attributes/name' });
    expect((await shelf(publicShelf.id)).attributes.name).toBe('Open shelf');
  });

  /** One write of each kind on a fresh shelf of the owner with one item, and the status the owner gets. */
  const writes: [string, (target: Resource, item: Resource, spare: string) => [string, string, unknown], number][] = [
    ['PATCH shelf', (target) => ['PATCH', `/bookshelves/${target.id}`, shelfBody({ description: 'changed' }, { id: target.id })], 200],
    ['DELETE shelf', (target) => ['DELETE', `/bookshelves/${target.id}`, undefined], 204],
    ['POST item', (target, _item, spare) => ['POST', `/bookshelves/${target.id}/items`, itemBody(spare)], 201],
    ['PATCH item', (target, item) => ['PATCH', `/bookshelves/${target.id}/items/${item.id}`, readBody(item.id, true)], 200],
    ['DELETE item', (target, item) => ['DELETE', `/bookshelves/${target.id}/items/${item.id}`, undefined], 204],
  ];

  for (const privacy of ['public', 'private'] as const) {
    for (const [label, request, ownerStatus] of writes) {
      it(`${label} on a ${privacy} shelf: write_bookshelves (403 insufficient_scope), a user (app-only 403), the owner (others ${privacy === 'public' ? '403 forbidden' : '404'})`, async () => {
        const target = await createShelf(owner, { name: `${label} ${privacy}`, privacy });
        const item = await addItem(owner, target.id, storyId);
        const spare = await publish(writer, { title: `Spare for ${label} ${privacy}` });
        const [method, path, body] = request(target, item, spare);
        const noScope = await api(method, path, { token: reader.token, body });
        expectError(noScope, 403, 'insufficient_scope');
        expect(noScope.headers.get('www-authenticate')).toContain('scope="write_bookshelves"');
        expectError(await api(method, path, { token: appToken, body }), 403, 'forbidden');
        expect((await api(method, path, { token: null, body })).status).toBe(401);
        if (privacy === 'public') expectError(await api(method, path, { token: other.token, body }), 403, 'forbidden');
        else expectError(await api(method, path, { token: other.token, body }), 404, 'not_found');
        expect(await itemStoryIds(target.id)).toEqual([storyId]);
        expect((await api(method, path, { token: owner.token, body })).status).toBe(ownerStatus);
      });
    }
  }
});

describe('changing shelves and items', () => {
  it('PATCH changes only what is sent and applies the write rules', async () => {
    const target = await createShelf(owner, { name: 'Before', description: 'Kept', color: '#000000' });
    const patch = (body: unknown, id = target.id) => api('PATCH', `/bookshelves/${id}`, { token: owner.token, body });
    const changed = ok(await patch(shelfBody({ name: 'After', privacy: 'public', order: 3 }, { id: target.id }))).data!;
    expect(changed.attributes).toMatchObject({ name: 'After', description: 'Kept', color: '#000000', privacy: 'public', order: 3 });
    expect((await shelf(target.id, reader.token)).attributes.name).toBe('After');
    expectError(await patch(shelfBody({ name: 'x'.repeat(201) }, { id: target.id })), 422, 'validation_failed', { pointer: '/data/attributes/name' });
    expectError(await patch(shelfBody({ name: '' }, { id: target.id })), 422, 'validation_failed', { pointer: '/data/attributes/name' });
    expectError(await patch(shelfBody({ color: 'blue' }, { id: target.id })), 422, 'validation_failed', { pointer: '/data/attributes/color' });
    expectError(await patch(shelfBody({ date_created: '2020-01-01T00:00:00Z' }, { id: target.id })), 422, 'validation_failed', { pointer: '/data/attributes/date_created' });
    expectError(await patch(shelfBody({ name: 'Other id' }, { id: '1' })), 409, 'conflict', { pointer: '/data/id' });
    expectError(await patch(shelfBody({ name: 'No id' })), 400, 'invalid_body');
    expectError(await patch({ data: { type: 'bookshelf_item', id: target.id, attributes: {} } }), 409, 'conflict');
    expect((await shelf(target.id)).attributes).toMatchObject({ name: 'After', color: '#000000' });
    expectError(await patch(shelfBody({ name: 'Gone' }, { id: '987654321' }), '987654321'), 404, 'not_found');
  });

  it('adds items with the story relationship: duplicates 409, unknown stories and others\' drafts 422', async () => {
    const target = await createShelf(owner, { name: 'Strict shelf' });
    const storyId = await publish(writer, { title: 'Add me once' });
    const add = (body: unknown) => api('POST', `/bookshelves/${target.id}/items`, { token: owner.token, body });
    const answer = await add(itemBody(storyId, { read: true }));
    const item = ok(answer, 201).data!;
    expect(answer.headers.get('location')).toBeNull();
    expect(item).not.toHaveProperty('links');
    expect(item.attributes).toMatchObject({ read: true });
    expect(item.attributes.date_added).toMatch(/Z$/);
    expect(item.relationships).toEqual({ bookshelf: { data: { type: 'bookshelf', id: target.id } }, story: { data: { type: 'story', id: storyId } } });

    expectError(await add(itemBody(storyId)), 409, 'conflict');
    expectError(await add(itemBody('987654321')), 422, 'validation_failed', { pointer: '/data/relationships/story' });
    expectError(await add(itemBody(draft.id)), 422, 'validation_failed', { pointer: '/data/relationships/story' });
    expectError(await add({ data: { type: 'bookshelf_item', attributes: { read: false } } }), 422, 'validation_failed', { pointer: '/data/relationships/story' });
    expectError(await add(itemBody(storyId, { read: 'yes' })), 422, 'validation_failed', { pointer: '/data/attributes/read' });
    expectError(await add(itemBody(storyId, { date_added: '2020-01-01T00:00:00Z' })), 422, 'validation_failed', { pointer: '/data/attributes/date_added' });
    expectError(await add({ data: { type: 'bookshelf', relationships: { story: { data: { type: 'story', id: storyId } } } } }), 409, 'conflict');
    expectError(await add(itemBody(storyId, {}, { id: '5' })), 403, 'forbidden');
    expectError(await add({ data: [] }), 400, 'invalid_body');
    expect(await itemStoryIds(target.id)).toEqual([storyId]);
  });

  it('marks items read and unread; the story of an item cannot change', async () => {
    const target = await createShelf(owner, { name: 'Reading' });
    const item = await addItem(owner, target.id, await publish(writer, { title: 'Read me' }));
    const mark = (body: unknown, itemId = item.id) => api('PATCH', `/bookshelves/${target.id}/items/${itemId}`, { token: owner.token, body });
    expect(ok(await mark(readBody(item.id, true))).data!.attributes.read).toBe(true);
    expect(ok(await mark(readBody(item.id, false))).data!.attributes.read).toBe(false);
    expectError(await mark(readBody(item.id, 'yes')), 422, 'validation_failed', { pointer: '/data/attributes/read' });
    expectError(await mark({ data: { type: 'bookshelf_item', id: item.id, relationships: { story: { data: { type: 'story', id: draft.id } } } } }), 422, 'validation_failed', {
      pointer: '/data/relationships/story',
    });
    expectError(await mark(readBody('1', true)), 409, 'conflict', { pointer: '/data/id' });
    expectError(await mark(readBody('987654321', true), '987654321'), 404, 'not_found');
    expectError(await client.as(owner.token).DELETE('/bookshelves/{id}/items/{item_id}', { params: { path: { id: target.id, item_id: '987654321' } } }), 404, 'not_found');
  });

  it('keeps num_stories and num_unread in step with adding, marking, removing and deleting', async () => {
    const target = await createShelf(owner, { name: 'Counting', privacy: 'public' });
    const [a, b] = [await publish(writer, { title: 'Count A' }), await publish(writer, { title: 'Count B' })];
    const counts = async () => {
      const { num_stories, num_unread } = (await shelf(target.id)).attributes;
      return [num_stories, num_unread];
    };
    const itemA = await addItem(owner, target.id, a);
    expect(await counts()).toEqual([1, 1]);
    const itemB = await addItem(owner, target.id, b, true);
    expect(await counts()).toEqual([2, 1]);
    const item = (itemId: string) => ({ params: { path: { id: target.id, item_id: itemId } }, ...bearer(owner.token) });
    ok(answer(await client.typed.PATCH('/bookshelves/{id}/items/{item_id}', { ...item(itemA.id), body: { data: { type: 'bookshelf_item', id: itemA.id, attributes: { read: true } } } })));
    expect(await counts()).toEqual([2, 0]);
    ok(answer(await client.typed.PATCH('/bookshelves/{id}/items/{item_id}', { ...item(itemB.id), body: { data: { type: 'bookshelf_item', id: itemB.id, attributes: { read: false } } } })));
    expect(await counts()).toEqual([2, 1]);
    expect(answer(await client.typed.DELETE('/bookshelves/{id}/items/{item_id}', item(itemB.id))).status).toBe(204);
    expect(await counts()).toEqual([1, 0]);
    expect(await itemStoryIds(target.id)).toEqual([a]);
    await shelfStories({ 'filter[bookshelf]': target.id }, [a], reader.token);

    const byId = { params: { path: { id: target.id } }, ...bearer(owner.token) };
    expect(answer(await client.typed.DELETE('/bookshelves/{id}', byId)).status).toBe(204);
    expectError(answer(await client.typed.GET('/bookshelves/{id}', byId)), 404, 'not_found');
    expectError(answer(await client.typed.GET('/bookshelves/{id}/items', byId)), 404, 'not_found');
    expectError(await client.as(reader.token).GET('/stories', { params: { query: { 'filter[bookshelf]': target.id } } }), 404, 'not_found', { parameter: 'filter[bookshelf]' });
  });
});

describe('lists, include and fields', () => {
  it('lists items in the order added across cursor pages, with story, story.author and bookshelf included once', async () => {
    const target = await createShelf(owner, { name: 'Ordered items', privacy: 'public' });
    const stories = [];
    for (let i = 0; i < 5; i++) stories.push(await publish(i % 2 === 0 ? writer : owner, { title: `Ordered ${i}` }));
    for (const storyId of stories) await addItem(owner, target.id, storyId);
    expect(await itemStoryIds(target.id, reader.token)).toEqual(stories);

    const first = ok(answer(await client.typed.GET('/bookshelves/{id}/items', { params: { path: { id: target.id }, query: { 'page[size]': 2, include: 'story.author,bookshelf' } }, ...bearer() })));
    expect(first.data).toHaveLength(2);
    expect(first.links?.next).toBeDefined();
    expect(first.included!.map((resource) => `${resource.type}:${resource.id}`).sort()).toEqual(
      [`story:${stories[0]}`, `story:${stories[1]}`, `user:${writer.id}`, `user:${owner.id}`, `bookshelf:${target.id}`].sort(),
    );
    const paged = await walkPages((next) => client.as().GET('/bookshelves/{id}/items', { params: { path: { id: target.id }, query: { 'page[size]': 2 } }, ...next }));
    expect(paged.map((item) => item.relationships!.story!.data!.id)).toEqual(stories);

    const narrowed = ok(answer(await client.typed.GET('/bookshelves/{id}/items', { params: { path: { id: target.id }, query: { include: 'bookshelf', 'fields[bookshelf_item]': 'read', 'fields[bookshelf]': 'name' } }, ...bearer() })));
    expect(narrowed.data![0]).toEqual({ id: narrowed.data![0]!.id, type: 'bookshelf_item', attributes: { read: false } });
    expect(narrowed.included).toEqual([{ id: target.id, type: 'bookshelf', attributes: { name: 'Ordered items' }, links: { self: `${stack.system.apiUrl}/bookshelves/${target.id}` } }]);
    const items = (query: NonNullable<operations['getBookshelvesByIdItems']['parameters']['query']>) => client.as().GET('/bookshelves/{id}/items', { params: { path: { id: target.id }, query } });
    expectError(await items({ include: 'user' }), 400, 'invalid_include', { parameter: 'include' });
    expectError(await items({ 'fields[bookshelf]': 'title' }), 400, 'invalid_fields', { parameter: 'fields[bookshelf]' });
  });

  it('lists shelves in the owner\'s order with include=user and cursor pages', async () => {
    const lister = await createTestUser(stack.system, { scopes: ['read_bookshelves', 'write_bookshelves'] });
    for (const [name, order] of [['Third', 30], ['First', 10], ['Second', 20]] as const) await createShelf(lister, { name, order, privacy: 'public' });
    const walked = await walkPages((next) => client.as().GET('/users/{id}/bookshelves', { params: { path: { id: lister.id }, query: { 'page[size]': 1 } }, ...next }));
    expect(walked.map((found) => found.attributes.name)).toEqual(['First', 'Second', 'Third']);
    const withUser = ok(answer(await client.typed.GET('/users/{id}/bookshelves', { params: { path: { id: lister.id }, query: { include: 'user', 'fields[user]': 'name' } }, ...bearer() })));
    expect(withUser.included).toEqual([{ id: lister.id, type: 'user', attributes: { name: lister.name }, links: { self: `${stack.system.apiUrl}/users/${lister.id}` } }]);
    const single = ok(answer(await client.typed.GET('/bookshelves/{id}', { params: { path: { id: walked[0]!.id }, query: { include: 'user' } }, ...bearer() }))).included;
    expect(idsOf(single!)).toEqual([lister.id]);
    expectError(await client.as().GET('/users/{id}/bookshelves', { params: { path: { id: lister.id }, query: { include: 'items' } } }), 400, 'invalid_include');
  });

  it('takes a deleted story off every shelf', async () => {
    const doomed = await publish(writer, { title: 'Doomed shelved story' });
    const kept = await publish(writer, { title: 'Kept shelved story' });
    const mine = await createShelf(owner, { name: 'Mine with doomed', privacy: 'public' });
    const theirs = await createShelf(other, { name: 'Theirs with doomed', privacy: 'public' });
    for (const [user, target] of [[owner, mine], [other, theirs]] as const) {
      await addItem(user, target.id, kept);
      await addItem(user, target.id, doomed);
    }
    await shelfStories({ 'filter[bookshelf]': mine.id, sort: 'date_added' }, [kept, doomed]);
    expect(answer(await client.typed.DELETE('/stories/{id}', { params: { path: { id: doomed } }, ...bearer(writer.token) })).status).toBe(204);
    for (const target of [mine, theirs]) {
      await eventually(() => itemStoryIds(target.id, other.token), (ids) => JSON.stringify(ids) === JSON.stringify([kept]), `items of shelf ${target.id}`);
      expect((await shelf(target.id, reader.token)).attributes.num_stories).toBe(1);
      await shelfStories({ 'filter[bookshelf]': target.id }, [kept], reader.token);
    }
  });
});

describe('GET /stories with filter[bookshelf], filter[unread] and sort=date_added', () => {
  /** The owner's public shelf, its stories in the order added, and which of them are read. */
  let shelved: Resource;
  const added: string[] = [];
  const read = new Set<string>();
  /** A published story by the writer that is on no shelf but matches most filters. */
  let outsider: string;
  let ownersPrivate: Resource;
  let blindPrivate: Resource;

  beforeAll(async () => {
    const [g0, g1] = genres as [string, string];
    const c0 = characters[0]!;
    const inputs: [TestUser, StoryInput][] = [
      [writer, { title: 'Shelf zero', words: 10, status: 'complete', tags: [g0] }],
      [writer, { title: `Shelf one ${TERM}`, words: 20, status: 'incomplete', tags: [g1] }],
      [writer, { title: `Shelf two ${TERM}`, words: 30, status: 'complete', tags: [g0, c0] }],
      [writer, { title: 'Shelf three', words: 40, status: 'on-hiatus', tags: [g1] }],
      [owner, { title: `Shelf four ${TERM}`, words: 15, status: 'complete', tags: [g0] }],
    ];
    shelved = await createShelf(owner, { name: 'Filter shelf', privacy: 'public' });
    for (const [user, input] of inputs) added.push(await publish(user, input));
    outsider = await publish(writer, { title: `Outside ${TERM}`, words: 20, status: 'complete', tags: [g0, c0] });
    for (const [index, storyId] of added.entries()) {
      await addItem(owner, shelved.id, storyId, index === 1);
      if (index === 1) read.add(storyId);
    }
    ownersPrivate = await createShelf(owner, { name: 'Private filter shelf', privacy: 'private' });
    await addItem(owner, ownersPrivate.id, added[0]!);
    blindPrivate = await createShelf(blind, { name: 'Blind filter shelf', privacy: 'private' });
    await addItem(blind, blindPrivate.id, added[0]!);
    await shelfStories({ 'filter[bookshelf]': shelved.id, sort: 'date_added' }, added);
    await shelfStories({ 'filter[bookshelf]': ownersPrivate.id }, [added[0]!]);
  });

  /** The shelf's stories (in the order added) for which `keep` holds. */
  const expected = (keep: (story: StoryFacts) => boolean = () => true): string[] => added.filter((id) => keep(facts.get(id)!));

  it('keeps the shelf\'s stories, sorted by date added in both directions; without a sort the default order', async () => {
    expect(await storyIds({ 'filter[bookshelf]': shelved.id, sort: 'date_added' }, reader.token)).toEqual(added);
    expect(await storyIds({ 'filter[bookshelf]': shelved.id, sort: '-date_added' }, appToken)).toEqual([...added].reverse());
    expect(await storyIds({ 'filter[bookshelf]': shelved.id })).toEqual([...added].reverse());
    expect(await storyIds({ 'filter[bookshelf]': shelved.id, 'filter[ids]': outsider })).toEqual([]);
  });

  it('combines with every other filter and with query', async () => {
    const [g0, g1] = genres as [string, string];
    const c0 = characters[0]!;
    const cases: [StoryList, (story: StoryFacts) => boolean][] = [
      [{ 'filter[ids]': `${added[1]},${added[3]},${outsider}` }, (story) => story.id === added[1] || story.id === added[3]],
      [{ 'filter[author]': writer.id }, (story) => story.authorId === writer.id],
      [{ 'filter[num_words]': '20,40' }, (story) => story.words >= 20 && story.words <= 40],
      [{ 'filter[status]': 'complete' }, (story) => story.status === 'complete'],
      [{ 'filter[date_published]': '2000-01-01,' }, () => true],
      [{ 'filter[date_published]': ',2000-01-01' }, () => false],
      [{ 'filter[tags]': g0 }, (story) => story.tags.includes(g0)],
      [{ 'filter[tags]': `${g0},${c0}` }, (story) => story.tags.includes(g0) && story.tags.includes(c0)],
      [{ 'filter[tags]': g1 }, (story) => story.tags.includes(g1)],
      [{ query: TERM }, (story) => story.searchable],
      [{ 'filter[unread]': 'true' }, (story) => !read.has(story.id)],
      [{ 'filter[unread]': 'false' }, () => true],
      [{ 'filter[unread]': '1', 'filter[author]': writer.id }, (story) => !read.has(story.id) && story.authorId === writer.id],
      [{ 'filter[unread]': 'true', query: TERM, 'filter[status]': 'complete' }, (story) => !read.has(story.id) && story.searchable && story.status === 'complete'],
    ];
    for (const [query, keep] of cases) {
      const want = expected(keep);
      const label = JSON.stringify(query);
      expect(await storyIds({ 'filter[bookshelf]': shelved.id, sort: 'date_added', ...query }), label).toEqual(want);
      expect(await storyIds({ 'filter[bookshelf]': shelved.id, sort: '-date_added', ...query }), `-date_added ${label}`).toEqual([...want].reverse());
    }
    const relevance = await storyIds({ 'filter[bookshelf]': shelved.id, query: TERM, sort: '-relevance' });
    expect([...relevance].sort()).toEqual(expected((story) => story.searchable).sort());
  });

  it('answers the shelf rules: date_added needs a shelf, unread a shelf the caller owns, private shelves their owner', async () => {
    const stories = (query: StoryList, token?: string) => client.as(token).GET('/stories', { params: { query } });
    expectError(await stories({ sort: 'date_added' }), 400, 'invalid_sort', { parameter: 'sort' });
    // date_added and filter[bookshelf] are not in the document for GET /users/:id/stories: sent raw.
    expectError(await api('GET', `/users/${owner.id}/stories?sort=date_added`), 400, 'invalid_sort', { parameter: 'sort' });
    expectError(await api('GET', `/users/${owner.id}/stories?filter[bookshelf]=${shelved.id}`), 400, 'invalid_parameter', { parameter: 'filter[bookshelf]' });
    for (const [query, token] of [
      [{ 'filter[unread]': 'true' }, owner.token],
      [{ 'filter[unread]': 'false' }, owner.token],
      [{ 'filter[bookshelf]': shelved.id, 'filter[unread]': 'true' }, other.token],
      [{ 'filter[bookshelf]': shelved.id, 'filter[unread]': 'false' }, appToken],
    ] as const) {
      expectError(await stories(query, token), 400, 'unread_requires_owned_bookshelf', { parameter: 'filter[unread]' });
    }
    expectError(await stories({ 'filter[bookshelf]': 'me' }), 400, 'invalid_parameter', { parameter: 'filter[bookshelf]' });
    expectError(await api('GET', `/stories?filter[bookshelf]=${shelved.id}&filter[unread]=yes`), 400, 'invalid_parameter', { parameter: 'filter[unread]' });

    expect(await storyIds({ 'filter[bookshelf]': ownersPrivate.id, 'filter[unread]': 'true' })).toEqual([added[0]]);
    // The bookshelves service is asked at request time, so these need no waiting for the stories service's copy.
    expectError(await stories({ 'filter[bookshelf]': blindPrivate.id }, blind.token), 403, 'insufficient_scope');
  });

  it('answers 404 not_found for another user\'s private shelf exactly as for a shelf that does not exist', async () => {
    const stories = (query: StoryList, token?: string) => client.as(token).GET('/stories', { params: { query } });
    const missing = '987654321';
    const hidden: unknown[] = [];
    for (const token of [other.token, reader.token, appToken]) {
      for (const shelfId of [ownersPrivate.id, missing]) {
        for (const query of [{ 'filter[bookshelf]': shelfId }, { 'filter[bookshelf]': shelfId, sort: 'date_added' }, { 'filter[bookshelf]': shelfId, 'filter[unread]': 'true' }] satisfies StoryList[]) {
          const result = answer(await stories(query, token));
          expectError(result, 404, 'not_found', { parameter: 'filter[bookshelf]' });
          hidden.push(result.body);
        }
      }
    }
    // Word for word the same answer, so nobody learns whether someone else's private shelf exists.
    expect(new Set(hidden.map((body) => JSON.stringify(body))).size).toBe(1);
    expectError(await stories({ 'filter[bookshelf]': missing }, owner.token), 404, 'not_found', { parameter: 'filter[bookshelf]' });
    expect(await storyIds({ 'filter[bookshelf]': ownersPrivate.id })).toEqual([added[0]]);
  });

  it('pages exactly by date added while stories are being added to the shelf', async () => {
    const target = await createShelf(owner, { name: 'Growing shelf', privacy: 'private' });
    const first: string[] = [];
    for (let i = 0; i < 6; i++) first.push(await publish(writer, { title: `Growing ${i}` }));
    for (const storyId of first) await addItem(owner, target.id, storyId);
    await shelfStories({ 'filter[bookshelf]': target.id, sort: 'date_added' }, first);

    for (const descending of [false, true]) {
      const seen: string[] = [];
      const late: string[] = [];
      const query: StoryList = { 'filter[bookshelf]': target.id, sort: descending ? '-date_added' : 'date_added', 'page[size]': 2 };
      let next: string | undefined;
      do {
        const body: { data: { id: string }[]; links: { next?: string } } = ok(await client.as(owner.token).GET('/stories', { params: { query }, ...(next === undefined ? {} : follow(next)) }));
        seen.push(...idsOf(body.data));
        next = body.links.next;
        if (next !== undefined && late.length < 3) {
          const storyId = await publish(writer, { title: `Late ${descending} ${late.length}` });
          await addItem(owner, target.id, storyId);
          late.push(storyId);
        }
      } while (next !== undefined);
      expect(new Set(seen).size, `no story twice: ${seen.join(',')}`).toBe(seen.length);
      const original = descending ? [...first].reverse() : first;
      expect(seen.filter((id) => original.includes(id)), 'every story present throughout, once, in order').toEqual(original);
      expect(seen.filter((id) => !original.includes(id) && !late.includes(id)), 'nothing from elsewhere').toEqual([]);
      first.push(...late);
      await shelfStories({ 'filter[bookshelf]': target.id, sort: 'date_added' }, first);
    }
  });
});

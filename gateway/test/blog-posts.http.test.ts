import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import { createAppToken, createTestUser, ensureDatabase, eventuallyValue, repoRoot, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components, operations } from '@inkwell/client';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, JsonApiClient, ok, pages, type Answer, type FollowOptions, type TypedResult } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_blog';
const MiB = 1024 * 1024;

let stack: GatewayStack;
let client: JsonApiClient;
let alice: TestUser;
let bob: TestUser;
let reader: TestUser;
let noScopes: TestUser;
let everything: TestUser;
let appToken: string;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  [alice, bob, reader, noScopes, everything] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_blog_posts'] }),
    createTestUser(stack.system, { scopes: ['write_blog_posts'] }),
    createTestUser(stack.system),
    createTestUser(stack.system),
    createTestUser(stack.system, { scopes: [...SCOPE_NAMES] }),
  ]);
  appToken = (await createAppToken(stack.system)).token;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

/** The typed client (checked against the API document) as `token`: the reader's when undefined, none when null. */
const api = (token?: string | null) => client.as(token);
/** A raw request as `token` (the reader's by default): for bodies and parameters the API document says are invalid, sent on purpose. */
const raw = (method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<Answer> => client.call(method, path, options);

type BlogPostAttributes = components['schemas']['PostBlogPostsRequest']['data']['attributes'];
type BlogPostRelationships = components['schemas']['PostBlogPostsRequest']['data']['relationships'];
type BlogPostList = NonNullable<operations['getBlogPosts']['parameters']['query']>;
type BlogPost = components['schemas']['BlogPostResource'];

function post(attributes: BlogPostAttributes, relationships?: BlogPostRelationships) {
  return { data: { type: 'blog_post' as const, attributes, ...(relationships === undefined ? {} : { relationships }) } };
}

const patch = (id: string, attributes: NonNullable<components['schemas']['PatchBlogPostsByIdRequest']['data']['attributes']>) => ({ data: { type: 'blog_post' as const, id, attributes } });

async function create(user: TestUser, attributes: Partial<BlogPostAttributes> = {}): Promise<BlogPost> {
  return ok(await api(user.token).POST('/blog-posts', { body: post({ title: 'A post', content: 'Some *text*', ...attributes }) }), 201).data!;
}

async function sitePost(title: string, tag?: string): Promise<string> {
  const databaseUrl = await ensureDatabase(stackEnv().databaseUrl, DATABASE);
  const root = repoRoot();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=@inkwell/source', '--import', 'tsx', join(root, 'services/blog/src/cli/main.ts'), 'create-site-post', '--title', title, '--content', `${title}, said the site.`, ...(tag === undefined ? [] : ['--tag', tag])],
    { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' } },
  );
  return (JSON.parse(stdout) as { id: string }).id;
}

const ids = (body: { data: { id: string }[] }): string[] => body.data.map((resource) => resource.id);
const errorOf = (answer: Answer) => answer.body.errors?.[0];
/** GET /blog-posts with `query` as `token` (the reader's by default), asserted 200. */
const list = async (query: BlogPostList, token?: string) => ok(await api(token).GET('/blog-posts', { params: { query } }));

/** Follows links.next from the first page `page` asks for to the end; returns every id, the number of pages and the last page. */
async function walk<P extends { data: { id: string }[]; links: { next?: string } }>(page: (next: FollowOptions | undefined) => Promise<TypedResult<P>>): Promise<{ ids: string[]; pages: number; last: P }> {
  const all: string[] = [];
  let count = 0;
  let last: P | undefined;
  for await (const body of pages(page)) {
    all.push(...ids(body));
    count++;
    last = body;
  }
  return { ids: all, pages: count, last: last! };
}

describe('POST /blog-posts', () => {
  it('posts as the caller: 201 with Location, the author relationship and no content unless asked', async () => {
    const result = await api(alice.token).POST('/blog-posts', {
      params: { query: { 'fields[blog_post]': 'title,content,content_html,author' } },
      body: post({ title: '  Hello  ', content: 'Hi **there** <script>x</script>', tags: ['News', ' news ', 'Long   Form'] }),
    });
    const body = ok(result, 201);
    const created = body.data!;
    expect(result.response.headers.get('location')).toBe(`${stack.origin}/api/v1/blog-posts/${created.id}`);
    expect(body.links?.self).toBe(`${stack.origin}/api/v1/blog-posts/${created.id}`);
    expect(created.attributes).toEqual({ title: 'Hello', content: 'Hi **there** <script>x</script>', content_html: '<p>Hi <strong>there</strong> &lt;script&gt;x&lt;/script&gt;</p>' });
    expect(created.relationships).toEqual({ author: { data: { type: 'user', id: alice.id } } });

    const fetched = ok(await api().GET('/blog-posts/{id}', { params: { path: { id: created.id } } })).data;
    expect(fetched.attributes).toMatchObject({ title: 'Hello', intro: 'Hi there <script>x</script>', tags: ['news', 'long form'], num_views: 0, site_post: false, site_post_tag: null });
    expect(fetched.attributes).not.toHaveProperty('content');
    expect(fetched.attributes).not.toHaveProperty('content_html');
    expect(fetched.attributes.date_posted).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    expect(fetched.relationships).toEqual({ author: { data: { type: 'user', id: alice.id } }, stories: { data: [] } });
  });

  it('needs write_blog_posts and a user: 403 insufficient_scope, 403 for app-only tokens, 401 without a token', async () => {
    const body = post({ title: 't', content: 'c' });
    const withoutScope = answer(await api(noScopes.token).POST('/blog-posts', { body }));
    expect(withoutScope.status).toBe(403);
    expect(errorOf(withoutScope)?.code).toBe('insufficient_scope');
    expect(withoutScope.headers.get('www-authenticate')).toContain('scope="write_blog_posts"');
    expect((await api(appToken).POST('/blog-posts', { body })).response.status).toBe(403);
    expect((await api(null).POST('/blog-posts', { body })).response.status).toBe(401);
  });

  it('answers 422 with a pointer for missing, blank, too long and read-only members', async () => {
    // Bodies the API document allows, refused by the rules of docs/api/blog.md.
    const allowed: Array<[BlogPostAttributes, string]> = [
      [{ title: '   ', content: 'c' }, '/data/attributes/title'],
      [{ title: 't', content: ' \n ' }, '/data/attributes/content'],
      [{ title: 'x'.repeat(201), content: 'c' }, '/data/attributes/title'],
      [{ title: 't', content: 'x'.repeat(MiB + 1) }, '/data/attributes/content'],
      [{ title: 't', content: 'c', tags: ['a,b'] }, '/data/attributes/tags/0'],
      [{ title: 't', content: 'c', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, '/data/attributes/tags'],
    ];
    for (const [attributes, pointer] of allowed) {
      const refused = answer(await api(alice.token).POST('/blog-posts', { body: post(attributes) }));
      expect(refused.status, pointer).toBe(422);
      expect(errorOf(refused), pointer).toMatchObject({ code: 'validation_failed', source: { pointer } });
    }
    // Bodies the API document itself refuses (missing, read-only or mistyped members): sent raw.
    const malformed: Array<[Record<string, unknown>, string]> = [
      [{ content: 'c' }, '/data/attributes/title'],
      [{ title: 't' }, '/data/attributes/content'],
      [{ title: 't', content: 'c', num_views: 5 }, '/data/attributes/num_views'],
      [{ title: 't', content: 'c', site_post: true }, '/data/attributes/site_post'],
      [{ title: 't', content: 'c', site_post_tag: 'news' }, '/data/attributes/site_post_tag'],
      [{ title: 't', content: 'c', intro: 'x' }, '/data/attributes/intro'],
      [{ title: 't', content: 'c', date_posted: '2020-01-01T00:00:00Z' }, '/data/attributes/date_posted'],
      [{ title: 't', content: 'c', tags: 'news' }, '/data/attributes/tags'],
    ];
    for (const [attributes, pointer] of malformed) {
      const refused = await raw('POST', '/blog-posts', { token: alice.token, body: { data: { type: 'blog_post', attributes } } });
      expect(refused.status, pointer).toBe(422);
      expect(errorOf(refused), pointer).toMatchObject({ code: 'validation_failed', source: { pointer } });
    }
    ok(await api(alice.token).POST('/blog-posts', { body: post({ title: 'x'.repeat(200), content: 'y'.repeat(MiB) }) }), 201);
  });

  it('answers 422 on /data/relationships/stories for unknown stories, and a read-only author', async () => {
    const unknown = answer(await api(alice.token).POST('/blog-posts', { body: post({ title: 't', content: 'c' }, { stories: { data: [{ type: 'story', id: '987654' }] } }) }));
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown)).toMatchObject({ code: 'validation_failed', source: { pointer: '/data/relationships/stories' } });
    // author is not a relationship a request may send (the document refuses it): sent raw.
    const author = await raw('POST', '/blog-posts', { token: alice.token, body: { data: { type: 'blog_post', attributes: { title: 't', content: 'c' }, relationships: { author: { data: { type: 'user', id: bob.id } } } } } });
    expect(author.status).toBe(422);
    expect(errorOf(author)?.source?.pointer).toBe('/data/relationships/author');
  });

  it('follows the JSON:API write rules: 409 wrong type, 403 client id, 400 not a resource object', async () => {
    // Each body breaks the document on purpose: sent raw.
    expect((await raw('POST', '/blog-posts', { token: alice.token, body: { data: { type: 'story', attributes: { title: 't' } } } })).status).toBe(409);
    const clientId = await raw('POST', '/blog-posts', { token: alice.token, body: { data: { type: 'blog_post', id: '5', attributes: { title: 't', content: 'c' } } } });
    expect(clientId.status).toBe(403);
    expect(errorOf(clientId)?.code).toBe('forbidden');
    const array = await raw('POST', '/blog-posts', { token: alice.token, body: { data: [] } });
    expect(array.status).toBe(400);
    expect(errorOf(array)?.code).toBe('invalid_body');
  });
});

describe('PATCH and DELETE /blog-posts/:id', () => {
  it('lets the author change what is sent, and nobody else (403 forbidden)', async () => {
    const created = await create(alice, { tags: ['one'] });
    const path = { id: created.id };
    const foreign = answer(await api(bob.token).PATCH('/blog-posts/{id}', { params: { path }, body: patch(created.id, { title: 'Mine now' }) }));
    expect(foreign.status).toBe(403);
    expect(errorOf(foreign)?.code).toBe('forbidden');
    // num_views is read-only (the document refuses it): sent raw.
    const foreignBadBody = await raw('PATCH', `/blog-posts/${created.id}`, { token: bob.token, body: { data: { type: 'blog_post', id: created.id, attributes: { num_views: 1 } } } });
    expect(foreignBadBody.status).toBe(403);

    const patched = ok(await api(alice.token).PATCH('/blog-posts/{id}', { params: { path, query: { 'fields[blog_post]': 'title,content,tags' } }, body: patch(created.id, { content: 'New _text_', tags: [] }) }));
    expect(patched.data.attributes).toEqual({ title: 'A post', content: 'New _text_', tags: [] });
    const after = ok(await api().GET('/blog-posts/{id}', { params: { path } })).data;
    expect(after.attributes.intro).toBe('New text');
    expect(after.attributes.date_modified).not.toBe(created.attributes.date_modified);
  });

  it('answers 409 for another id in the body, 422 for read-only and invalid attributes, 404 for unknown posts', async () => {
    const created = await create(alice);
    const path = { id: created.id };
    const otherId = await api(alice.token).PATCH('/blog-posts/{id}', { params: { path }, body: patch('1', { title: 'x' }) });
    expect(otherId.response.status).toBe(409);
    // site_post is read-only (the document refuses it): sent raw.
    const readOnly = await raw('PATCH', `/blog-posts/${created.id}`, { token: alice.token, body: { data: { type: 'blog_post', id: created.id, attributes: { site_post: true } } } });
    expect(readOnly.status).toBe(422);
    expect(errorOf(readOnly)?.source?.pointer).toBe('/data/attributes/site_post');
    const blank = await api(alice.token).PATCH('/blog-posts/{id}', { params: { path }, body: patch(created.id, { title: '' }) });
    expect(blank.response.status).toBe(422);
    expect((await api(alice.token).PATCH('/blog-posts/{id}', { params: { path: { id: '987654' } }, body: patch('987654', { title: 'x' }) })).response.status).toBe(404);
    expect((await raw('PATCH', '/blog-posts/987654', { token: alice.token, body: { data: { type: 'blog_post', id: '987654', attributes: { num_views: 1 } } } })).status).toBe(404);
  });

  it('refuses an invalid value for someone who may not write it: 404 unknown post, then 403 forbidden', async () => {
    const created = await create(alice);
    const tooLong = 'x'.repeat(201);
    const foreign = answer(await api(bob.token).PATCH('/blog-posts/{id}', { params: { path: { id: created.id } }, body: patch(created.id, { title: tooLong }) }));
    expect(foreign.status).toBe(403);
    expect(errorOf(foreign)?.code).toBe('forbidden');
    const unknown = answer(await api(alice.token).PATCH('/blog-posts/{id}', { params: { path: { id: '987654' } }, body: patch('987654', { title: '' }) }));
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)?.code).toBe('not_found');
    // The author hears about the value itself.
    const own = answer(await api(alice.token).PATCH('/blog-posts/{id}', { params: { path: { id: created.id } }, body: patch(created.id, { title: tooLong }) }));
    expect(own.status).toBe(422);
    expect(errorOf(own)?.source?.pointer).toBe('/data/attributes/title');
  });

  it('deletes only for the author: 403 for others, 204 for the author, then 404', async () => {
    const created = await create(alice);
    const params = { path: { id: created.id } };
    expect((await api(bob.token).DELETE('/blog-posts/{id}', { params })).response.status).toBe(403);
    expect((await api(noScopes.token).DELETE('/blog-posts/{id}', { params })).response.status).toBe(403);
    ok(await api(alice.token).DELETE('/blog-posts/{id}', { params }), 204);
    expect((await api().GET('/blog-posts/{id}', { params })).response.status).toBe(404);
    expect((await api(alice.token).DELETE('/blog-posts/{id}', { params })).response.status).toBe(404);
  });
});

describe('site posts', () => {
  let announcement: string;
  let untagged: string;

  beforeAll(async () => {
    announcement = await sitePost('Maintenance tonight', 'Announcement');
    untagged = await sitePost('Welcome to Inkwell');
  });

  it('answer 403 site_post_immutable to PATCH and DELETE whatever the token’s scopes and body', async () => {
    const params = { path: { id: announcement } };
    for (const token of [everything.token, alice.token]) {
      const patched = answer(await api(token).PATCH('/blog-posts/{id}', { params, body: patch(announcement, { title: 'Hacked' }) }));
      expect(patched.status).toBe(403);
      expect(errorOf(patched)?.code).toBe('site_post_immutable');
      // num_views is read-only (the document refuses it): sent raw.
      const badBody = await raw('PATCH', `/blog-posts/${announcement}`, { token, body: { data: { type: 'blog_post', id: announcement, attributes: { num_views: 1e6 } } } });
      expect(errorOf(badBody)?.code).toBe('site_post_immutable');
      const badValue = answer(await api(token).PATCH('/blog-posts/{id}', { params, body: patch(announcement, { title: '' }) }));
      expect(badValue.status).toBe(403);
      expect(errorOf(badValue)?.code).toBe('site_post_immutable');
      const deleted = answer(await api(token).DELETE('/blog-posts/{id}', { params }));
      expect(deleted.status).toBe(403);
      expect(errorOf(deleted)?.code).toBe('site_post_immutable');
    }
    const withoutScope = await api(noScopes.token).DELETE('/blog-posts/{id}', { params });
    expect(withoutScope.response.status).toBe(403);
    expect(ok(await api().GET('/blog-posts/{id}', { params })).data.attributes.title).toBe('Maintenance tonight');
  });

  it('list and filter like any post, with no author', async () => {
    const site = await list({ 'filter[site_post]': 'true' });
    expect(ids(site)).toEqual([untagged, announcement]);
    expect(site.data[1]).toMatchObject({ attributes: { site_post: true, site_post_tag: 'announcement' }, relationships: { author: { data: null } } });
    expect(ids(await list({ 'filter[site_post_tag]': 'ANNOUNCEMENT' }))).toEqual([announcement]);
    expect(ids(await list({ 'filter[site_post]': '0', 'filter[site_post_tag]': 'announcement' }))).toEqual([]);
    expect(ids(await list({ query: 'maintenance' }))).toEqual([announcement]);
    expect(ids(await list({ 'filter[site_post]': 'false', 'page[size]': 100 }))).not.toContain(announcement);
  });
});

describe('GET /blog-posts lists', () => {
  let writer: TestUser;
  const p: Record<string, BlogPost> = {};

  beforeAll(async () => {
    writer = await createTestUser(stack.system, { scopes: ['write_blog_posts'] });
    // Created in this order, so date_posted ascends (ties by id would also ascend).
    p.dragonTitle = await create(writer, { title: 'Dragons of the north', content: 'Cold winds and ice.', tags: ['Fantasy'] });
    p.food = await create(writer, { title: 'Cooking notes', content: 'Recipes for a long winter.', tags: ['food'] });
    p.dragonTag = await create(writer, { title: 'Character sheets', content: 'Names and ages of my heroes.', tags: ['dragons', 'update'] });
    p.dragonContent = await create(writer, { title: 'Market day', content: 'We bought fruit. A dragon mask was on sale; it was the only odd thing among a great many ordinary stalls and ordinary people.' });
    p.plain = await create(writer, { title: 'Plain', content: 'Nothing special.' });
  });

  const all = () => [p.plain!, p.dragonContent!, p.dragonTag!, p.food!, p.dragonTitle!].map((r) => r.id);
  const author = () => ({ 'filter[author]': writer.id });
  /** GET /blog-posts of the writer with `query` added. */
  const byWriter = (query: BlogPostList = {}, token?: string) => list({ ...author(), ...query }, token);

  it('defaults to newest first, pages of 20, and links', async () => {
    const result = await api().GET('/blog-posts', { params: { query: author() } });
    const body = ok(result);
    expect(result.response.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(ids(body)).toEqual(all());
    expect(body.links.self).toBe(`${stack.system.apiUrl}/blog-posts?filter[author]=${writer.id}`);
    expect(body.links.first).toBe(`${stack.system.apiUrl}/blog-posts?filter[author]=${writer.id}`);
    expect(body.links).not.toHaveProperty('next');
    expect(body.data[0]?.attributes).not.toHaveProperty('content');
  });

  it('sorts by date_posted ascending, and by relevance with a query (title, then tags, then content)', async () => {
    expect(ids(await byWriter({ sort: 'date_posted' }))).toEqual([...all()].reverse());
    expect(ids(await byWriter({ query: 'dragon', sort: '-relevance' }))).toEqual([p.dragonTitle!.id, p.dragonTag!.id, p.dragonContent!.id]);
    expect(ids(await byWriter({ query: 'dragon', sort: 'relevance' }))).toEqual([p.dragonContent!.id, p.dragonTag!.id, p.dragonTitle!.id]);
    expect(ids(await byWriter({ query: 'dragon' }))).toEqual([p.dragonContent!.id, p.dragonTag!.id, p.dragonTitle!.id]);
  });

  it('filters by ids, tags (any, any case), and combinations', async () => {
    expect(ids(await list({ 'filter[ids]': `${p.food!.id},${p.plain!.id},987654` }))).toEqual([p.plain!.id, p.food!.id]);
    expect(ids(await byWriter({ 'filter[tags]': 'FOOD,update' }))).toEqual([p.dragonTag!.id, p.food!.id]);
    expect(ids(await byWriter({ 'filter[tags]': 'fantasy', query: 'dragons' }))).toEqual([p.dragonTitle!.id]);
    expect(ids(await list({ 'filter[author]': '987654' }))).toEqual([]);
  });

  it('filters date_posted inclusively at exact instants, to the nanosecond, and by whole UTC days', async () => {
    const food = p.food!.attributes.date_posted!;
    const dragonContent = p.dragonContent!.attributes.date_posted!;
    const posted = (range: string) => byWriter({ 'filter[date_posted]': range });
    const instant = (iso: string, nanos: string) => iso.replace(/(\.\d{3})?Z$/, (_m, ms: string | undefined) => `${(ms ?? '.000').slice(0, 4)}${nanos}Z`);
    expect(ids(await posted(`${food},${dragonContent}`))).toEqual([p.dragonContent!.id, p.dragonTag!.id, p.food!.id]);
    expect(ids(await posted(food))).toEqual([p.food!.id]);
    expect(ids(await posted(`${instant(food, '000001')},${instant(dragonContent, '999999')}`))).toEqual([p.dragonContent!.id, p.dragonTag!.id]);
    expect(ids(await posted(`,${instant(food, '999999')}`))).toEqual([p.food!.id, p.dragonTitle!.id]);
    const today = food.slice(0, 10);
    const dayBefore = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10);
    const dayAfter = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10);
    // The posts were all made just now; skip the whole-day checks in the moment around midnight UTC.
    if (p.dragonTitle!.attributes.date_posted!.slice(0, 10) === p.plain!.attributes.date_posted!.slice(0, 10)) {
      expect(ids(await posted(today))).toEqual(all());
      expect(ids(await posted(`${today},${today}`))).toEqual(all());
    }
    expect(ids(await posted(`,${dayBefore}`))).toEqual([]);
    expect(ids(await posted(`${dayAfter},`))).toEqual([]);
  });

  it('answers malformed filters, sorts and page sizes with 400 naming the parameter', async () => {
    // Malformed on purpose (most break the document's own parameter schemas): sent raw.
    const cases: Array<[string, string, string]> = [
      ['filter[ids]=1,abc', 'invalid_parameter', 'filter[ids]'],
      ['filter[author]=me', 'invalid_parameter', 'filter[author]'],
      ['filter[author]=-3', 'invalid_parameter', 'filter[author]'],
      ['filter[site_post]=yes', 'invalid_parameter', 'filter[site_post]'],
      ['filter[tags]=a,,b', 'invalid_parameter', 'filter[tags]'],
      ['filter[site_post_tag]=%20', 'invalid_parameter', 'filter[site_post_tag]'],
      ['filter[date_posted]=2024-13-01', 'invalid_parameter', 'filter[date_posted]'],
      ['filter[date_posted]=2024-03-02,2024-03-01', 'invalid_parameter', 'filter[date_posted]'],
      ['filter[date_posted]=yesterday,', 'invalid_parameter', 'filter[date_posted]'],
      ['filter[status]=complete', 'invalid_parameter', 'filter[status]'],
      ['sort=relevance', 'invalid_sort', 'sort'],
      ['sort=-date_posted,num_views', 'too_many_sort_fields', 'sort'],
      ['sort=title', 'invalid_sort', 'sort'],
      ['page[size]=0', 'invalid_parameter', 'page[size]'],
      ['page[size]=101', 'invalid_parameter', 'page[size]'],
      ['page[size]=-1', 'invalid_parameter', 'page[size]'],
      ['page[cursor]=garbage', 'invalid_cursor', 'page[cursor]'],
      ['page[number]=2', 'invalid_parameter', 'page[number]'],
      ['fields[blog_post]=secret', 'invalid_fields', 'fields[blog_post]'],
      ['include=comments', 'invalid_include', 'include'],
    ];
    for (const [query, code, parameter] of cases) {
      const refused = await raw('GET', `/blog-posts?${query}`);
      expect(refused.status, query).toBe(400);
      expect(errorOf(refused), query).toMatchObject({ code, source: { parameter } });
    }
    await list({ 'page[size]': 100 });
    await list({ 'page[size]': 1 });
  });

  it('pages with cursors for every sort: no gaps, no repeats, no next on the last page', async () => {
    const queries: BlogPostList[] = [{}, { sort: 'date_posted' }, { sort: '-num_views' }, { sort: 'num_views' }, { query: 'dragon', sort: '-relevance' }];
    for (const query of queries) {
      const whole = ids(await byWriter({ ...query, 'page[size]': 100 }));
      for (const size of [1, 2]) {
        const walked = await walk((next) => api().GET('/blog-posts', { params: { query: { ...author(), ...query, 'page[size]': size } }, ...next }));
        expect(walked.ids, `${JSON.stringify(query)} size ${size}`).toEqual(whole);
        expect(walked.pages).toBe(Math.max(1, Math.ceil(whole.length / size)));
        expect(walked.last.links).not.toHaveProperty('next');
      }
    }
    const full = await byWriter({ 'page[size]': 5 });
    expect(ids(full)).toHaveLength(5);
    expect(full.links).not.toHaveProperty('next');
  });

  it('keeps every parameter in links.next, search included, and lets page[size] change between pages', async () => {
    const first = await byWriter({ query: 'dragon', sort: '-relevance', 'page[size]': 1 });
    const next = first.links.next;
    expect(next).toContain('query=dragon');
    expect(next).toContain(`filter[author]=${writer.id}`);
    expect(next).toContain('sort=-relevance');
    const cursor = new URL(next!).searchParams.get('page[cursor]')!;
    const bigger = await byWriter({ query: 'dragon', sort: '-relevance', 'page[size]': 10, 'page[cursor]': cursor });
    expect(ids(bigger)).toEqual([p.dragonTag!.id, p.dragonContent!.id]);
  });

  it('refuses a cursor with other filters, another sort or query, or another caller (400 invalid_cursor)', async () => {
    const first = await byWriter({ 'page[size]': 1 });
    const cursor = new URL(first.links.next!).searchParams.get('page[cursor]')!;
    const page = { 'page[size]': 1, 'page[cursor]': cursor };
    for (const [query, token] of [
      [{ 'filter[tags]': 'food' }, reader.token],
      [{ sort: 'date_posted' }, reader.token],
      [{ query: 'dragon' }, reader.token],
      [{}, bob.token],
      [{}, appToken],
    ] as const) {
      const refused = answer(await api(token).GET('/blog-posts', { params: { query: { ...author(), ...query, ...page } } }));
      expect(refused.status, JSON.stringify(query)).toBe(400);
      expect(errorOf(refused)?.code).toBe('invalid_cursor');
    }
    await byWriter(page);
  });

  it('GET /users/:id/blog-posts answers exactly what GET /blog-posts?filter[author]=:id does, `me` included', async () => {
    const queries: BlogPostList[] = [{}, { sort: 'date_posted' }, { query: 'dragon', sort: '-relevance' }, { 'filter[tags]': 'food,fantasy' }, { 'page[size]': 2 }, { 'fields[blog_post]': 'title,content' }];
    for (const query of queries) {
      const filtered = await byWriter(query);
      const byUser = ok(await api().GET('/users/{id}/blog-posts', { params: { path: { id: writer.id }, query } }));
      expect(byUser.data, JSON.stringify(query)).toEqual(filtered.data);
      expect(Boolean(byUser.links.next)).toBe(Boolean(filtered.links.next));
    }
    const mine = ok(await api(writer.token).GET('/users/{id}/blog-posts', { params: { path: { id: 'me' } } }));
    expect(ids(mine)).toEqual(all());
    expect((await walk((next) => api().GET('/users/{id}/blog-posts', { params: { path: { id: writer.id }, query: { 'page[size]': 2 } }, ...next }))).ids).toEqual(all());
    // filter[author] is no parameter of this path (the document has none): sent raw.
    const withAuthor = await raw('GET', `/users/${writer.id}/blog-posts?filter[author]=${writer.id}`);
    expect(withAuthor.status).toBe(400);
    expect((await api(appToken).GET('/users/{id}/blog-posts', { params: { path: { id: 'me' } } })).response.status).toBe(401);
    expect(ids(ok(await api().GET('/users/{id}/blog-posts', { params: { path: { id: '987654' } } })))).toEqual([]);
  });
});

describe('the stories relationship, fed by the stories service’s events', () => {
  it('links only published stories (422 for drafts), hides a link while its story is unpublished, and includes stories and authors', async () => {
    const storyteller = await createTestUser(stack.system, { scopes: ['write_stories', 'write_blog_posts'] });
    const as = api(storyteller.token);
    const storyId = ok(await as.POST('/stories', { body: { data: { type: 'story', attributes: { title: 'The long road' } } } }), 201).data.id;
    const body = post({ title: 'About my story', content: 'Read it!' }, { stories: { data: [{ type: 'story', id: storyId }] } });
    const timing = { timeoutMs: 15_000, intervalMs: 100 };

    // A draft cannot be linked: the blog learns of the story (StoryCreated, unpublished) and says 422.
    const draft = await eventuallyValue(async () => answer(await as.POST('/blog-posts', { body })), (refused) => refused.status === 422, { ...timing, what: 'the draft to be known' });
    expect(errorOf(draft)?.source?.pointer).toBe('/data/relationships/stories');

    ok(await as.POST('/stories/{id}/chapters', { params: { path: { id: storyId } }, body: { data: { type: 'chapter', attributes: { title: 'One', content: 'Once upon a time.', published: true } } } }), 201);
    ok(await as.PATCH('/stories/{id}', { params: { path: { id: storyId } }, body: { data: { type: 'story', id: storyId, attributes: { published: true } } } }));
    const posting = () => as.POST('/blog-posts', { params: { query: { include: 'stories,stories.author,author' } }, body });
    const created = ok(await eventuallyValue(posting, (result) => result.response.status === 201, { ...timing, what: 'the published story to be linkable' }), 201);
    const postId = created.data!.id;
    expect(created.data!.relationships?.stories).toEqual({ data: [{ type: 'story', id: storyId }] });
    const included = created.included ?? [];
    expect(included.map((resource) => `${resource.type}:${resource.id}`).sort()).toEqual([`story:${storyId}`, `user:${storyteller.id}`].sort());

    ok(await as.PATCH('/stories/{id}', { params: { path: { id: storyId } }, body: { data: { type: 'story', id: storyId, attributes: { published: false } } } }));
    const linked = async () => ok(await api().GET('/blog-posts/{id}', { params: { path: { id: postId } } })).data.relationships?.stories?.data;
    await eventuallyValue(linked, (stories) => stories?.length === 0, { ...timing, what: 'the link to be hidden' });
  });
});

describe('num_blog_posts of the author', () => {
  it('follows creates and deletes of user posts (from blog.post.v1 events), and never counts site posts', async () => {
    const author = await createTestUser(stack.system, { scopes: ['write_blog_posts'] });
    const count = async () => ok(await api().GET('/users/{id}', { params: { path: { id: author.id } } })).data.attributes.num_blog_posts;
    const until = (expected: number) => eventuallyValue(count, (seen) => seen === expected, { timeoutMs: 15_000, intervalMs: 100, what: `num_blog_posts ${expected}` });
    expect(await count()).toBe(0);
    const first = await create(author);
    await create(author, { title: 'Second' });
    await until(2);
    const params = { path: { id: first.id } };
    await api(author.token).PATCH('/blog-posts/{id}', { params, body: patch(first.id, { title: 'Renamed' }) });
    ok(await api(author.token).DELETE('/blog-posts/{id}', { params }), 204);
    await sitePost('Counted for nobody');
    await until(1);
  });
});

describe('views', () => {
  it('count when a reader fetches the content, once per reader (user, or app for app-only tokens) per 24 hours', async () => {
    const created = await create(alice);
    const read = async (token: string, fields = 'title,content,num_views') => ok(await api(token).GET('/blog-posts/{id}', { params: { path: { id: created.id }, query: { 'fields[blog_post]': fields } } })).data.attributes;
    expect(await read(reader.token, 'num_views')).toEqual({ num_views: 0 });
    expect(await read(reader.token)).toMatchObject({ content: 'Some *text*', num_views: 1 });
    expect(await read(reader.token)).toMatchObject({ num_views: 1 });
    expect(await read(bob.token, 'content_html,num_views')).toMatchObject({ content_html: '<p>Some <em>text</em></p>', num_views: 2 });
    expect(await read(appToken)).toMatchObject({ num_views: 3 });
    expect(await read(appToken)).toMatchObject({ num_views: 3 });
    const listed = await list({ 'filter[ids]': created.id, 'fields[blog_post]': 'content,num_views' }, noScopes.token);
    expect(listed.data[0]?.attributes).toMatchObject({ num_views: 4 });
    const sorted = await list({ 'filter[ids]': created.id, sort: '-num_views' });
    expect(sorted.data[0]?.attributes.num_views).toBe(4);
  });
});

describe('GET /blog-posts/:id', () => {
  it('answers 404 for unknown and non-numeric ids, and 401 without a token', async () => {
    expect((await api().GET('/blog-posts/{id}', { params: { path: { id: '987654' } } })).response.status).toBe(404);
    expect((await api().GET('/blog-posts/{id}', { params: { path: { id: 'abc' } } })).response.status).toBe(404);
    expect((await api(null).GET('/blog-posts')).response.status).toBe(401);
  });
});

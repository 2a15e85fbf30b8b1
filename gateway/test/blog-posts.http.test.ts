import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import { createAppToken, createTestUser, ensureDatabase, eventuallyValue, repoRoot, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';

const DATABASE = 'inkwell_test_gateway_blog';
const MiB = 1024 * 1024;

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: unknown }>;
  links?: { self: string };
}

interface Body {
  data?: Resource & Resource[];
  links?: { self: string; first?: string; next?: string };
  errors?: { status: string; code: string; detail: string; source?: { pointer?: string; parameter?: string } }[];
}

interface Answer {
  status: number;
  headers: Headers;
  body: Body;
}

let stack: GatewayStack;
let alice: TestUser;
let bob: TestUser;
let reader: TestUser;
let noScopes: TestUser;
let everything: TestUser;
let appToken: string;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
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

async function api(method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? reader.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const response = await fetch(`${stack.system.apiUrl}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Body) };
}

function post(attributes: Record<string, unknown>, relationships?: Record<string, unknown>) {
  return { data: { type: 'blog_post', attributes, ...(relationships === undefined ? {} : { relationships }) } };
}

async function create(user: TestUser, attributes: Record<string, unknown> = {}): Promise<Resource> {
  const answer = await api('POST', '/blog-posts', { token: user.token, body: post({ title: 'A post', content: 'Some *text*', ...attributes }) });
  expect(answer.status).toBe(201);
  return answer.body.data!;
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

const ids = (answer: Answer) => (answer.body.data ?? []).map((resource) => resource.id);
const errorOf = (answer: Answer) => answer.body.errors?.[0];

/** Follows links.next from `path` to the end; returns every id and the number of pages. */
async function walk(path: string, token?: string): Promise<{ ids: string[]; pages: number; last: Answer }> {
  const all: string[] = [];
  let url: string | undefined = `${stack.system.apiUrl}${path}`;
  let pages = 0;
  let last: Answer | undefined;
  while (url !== undefined) {
    last = await api('GET', url.slice(stack.system.apiUrl.length), { token: token ?? reader.token });
    expect(last.status).toBe(200);
    all.push(...ids(last));
    pages++;
    url = last.body.links?.next;
  }
  return { ids: all, pages, last: last! };
}

describe('POST /blog-posts', () => {
  it('posts as the caller: 201 with Location, the author relationship and no content unless asked', async () => {
    const answer = await api('POST', '/blog-posts?fields[blog_post]=title,content,content_html,author', {
      token: alice.token,
      body: post({ title: '  Hello  ', content: 'Hi **there** <script>x</script>', tags: ['News', ' news ', 'Long   Form'] }),
    });
    expect(answer.status).toBe(201);
    const created = answer.body.data!;
    expect(answer.headers.get('location')).toBe(`${stack.origin}/api/v1/blog-posts/${created.id}`);
    expect(answer.body.links?.self).toBe(`${stack.origin}/api/v1/blog-posts/${created.id}`);
    expect(created.attributes).toEqual({ title: 'Hello', content: 'Hi **there** <script>x</script>', content_html: '<p>Hi <strong>there</strong> &lt;script&gt;x&lt;/script&gt;</p>' });
    expect(created.relationships).toEqual({ author: { data: { type: 'user', id: alice.id } } });

    const fetched = await api('GET', `/blog-posts/${created.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.data?.attributes).toMatchObject({ title: 'Hello', intro: 'Hi there <script>x</script>', tags: ['news', 'long form'], num_views: 0, site_post: false, site_post_tag: null });
    expect(fetched.body.data?.attributes).not.toHaveProperty('content');
    expect(fetched.body.data?.attributes).not.toHaveProperty('content_html');
    expect(fetched.body.data?.attributes.date_posted).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    expect(fetched.body.data?.relationships).toEqual({ author: { data: { type: 'user', id: alice.id } }, stories: { data: [] } });
  });

  it('needs write_blog_posts and a user: 403 insufficient_scope, 403 for app-only tokens, 401 without a token', async () => {
    const body = post({ title: 't', content: 'c' });
    const withoutScope = await api('POST', '/blog-posts', { token: noScopes.token, body });
    expect(withoutScope.status).toBe(403);
    expect(errorOf(withoutScope)?.code).toBe('insufficient_scope');
    expect(withoutScope.headers.get('www-authenticate')).toContain('scope="write_blog_posts"');
    expect((await api('POST', '/blog-posts', { token: appToken, body })).status).toBe(403);
    expect((await api('POST', '/blog-posts', { token: null, body })).status).toBe(401);
  });

  it('answers 422 with a pointer for missing, blank, too long and read-only members', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ content: 'c' }, '/data/attributes/title'],
      [{ title: 't' }, '/data/attributes/content'],
      [{ title: '   ', content: 'c' }, '/data/attributes/title'],
      [{ title: 't', content: ' \n ' }, '/data/attributes/content'],
      [{ title: 'x'.repeat(201), content: 'c' }, '/data/attributes/title'],
      [{ title: 't', content: 'x'.repeat(MiB + 1) }, '/data/attributes/content'],
      [{ title: 't', content: 'c', num_views: 5 }, '/data/attributes/num_views'],
      [{ title: 't', content: 'c', site_post: true }, '/data/attributes/site_post'],
      [{ title: 't', content: 'c', site_post_tag: 'news' }, '/data/attributes/site_post_tag'],
      [{ title: 't', content: 'c', intro: 'x' }, '/data/attributes/intro'],
      [{ title: 't', content: 'c', date_posted: '2020-01-01T00:00:00Z' }, '/data/attributes/date_posted'],
      [{ title: 't', content: 'c', tags: 'news' }, '/data/attributes/tags'],
      [{ title: 't', content: 'c', tags: ['a,b'] }, '/data/attributes/tags/0'],
      [{ title: 't', content: 'c', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, '/data/attributes/tags'],
    ];
    for (const [attributes, pointer] of cases) {
      const answer = await api('POST', '/blog-posts', { token: alice.token, body: post(attributes) });
      expect(answer.status, pointer).toBe(422);
      expect(errorOf(answer), pointer).toMatchObject({ code: 'validation_failed', source: { pointer } });
    }
    const exact = await api('POST', '/blog-posts', { token: alice.token, body: post({ title: 'x'.repeat(200), content: 'y'.repeat(MiB) }) });
    expect(exact.status).toBe(201);
  });

  it('answers 422 on /data/relationships/stories for unknown stories, and a read-only author', async () => {
    const unknown = await api('POST', '/blog-posts', { token: alice.token, body: post({ title: 't', content: 'c' }, { stories: { data: [{ type: 'story', id: '987654' }] } }) });
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown)).toMatchObject({ code: 'validation_failed', source: { pointer: '/data/relationships/stories' } });
    const author = await api('POST', '/blog-posts', { token: alice.token, body: post({ title: 't', content: 'c' }, { author: { data: { type: 'user', id: bob.id } } }) });
    expect(author.status).toBe(422);
    expect(errorOf(author)?.source?.pointer).toBe('/data/relationships/author');
  });

  it('follows the JSON:API write rules: 409 wrong type, 403 client id, 400 not a resource object', async () => {
    expect((await api('POST', '/blog-posts', { token: alice.token, body: { data: { type: 'story', attributes: { title: 't' } } } })).status).toBe(409);
    const clientId = await api('POST', '/blog-posts', { token: alice.token, body: { data: { type: 'blog_post', id: '5', attributes: { title: 't', content: 'c' } } } });
    expect(clientId.status).toBe(403);
    expect(errorOf(clientId)?.code).toBe('forbidden');
    const array = await api('POST', '/blog-posts', { token: alice.token, body: { data: [] } });
    expect(array.status).toBe(400);
    expect(errorOf(array)?.code).toBe('invalid_body');
  });
});

describe('PATCH and DELETE /blog-posts/:id', () => {
  it('lets the author change what is sent, and nobody else (403 forbidden)', async () => {
    const created = await create(alice, { tags: ['one'] });
    const foreign = await api('PATCH', `/blog-posts/${created.id}`, { token: bob.token, body: { data: { type: 'blog_post', id: created.id, attributes: { title: 'Mine now' } } } });
    expect(foreign.status).toBe(403);
    expect(errorOf(foreign)?.code).toBe('forbidden');
    const foreignBadBody = await api('PATCH', `/blog-posts/${created.id}`, { token: bob.token, body: { data: { type: 'blog_post', id: created.id, attributes: { num_views: 1 } } } });
    expect(foreignBadBody.status).toBe(403);

    const patched = await api('PATCH', `/blog-posts/${created.id}?fields[blog_post]=title,content,tags`, {
      token: alice.token,
      body: { data: { type: 'blog_post', id: created.id, attributes: { content: 'New _text_', tags: [] } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data?.attributes).toEqual({ title: 'A post', content: 'New _text_', tags: [] });
    const after = await api('GET', `/blog-posts/${created.id}`);
    expect(after.body.data?.attributes.intro).toBe('New text');
    expect(after.body.data?.attributes.date_modified).not.toBe(created.attributes.date_modified);
  });

  it('answers 409 for another id in the body, 422 for read-only and invalid attributes, 404 for unknown posts', async () => {
    const created = await create(alice);
    const otherId = await api('PATCH', `/blog-posts/${created.id}`, { token: alice.token, body: { data: { type: 'blog_post', id: '1', attributes: { title: 'x' } } } });
    expect(otherId.status).toBe(409);
    const readOnly = await api('PATCH', `/blog-posts/${created.id}`, { token: alice.token, body: { data: { type: 'blog_post', id: created.id, attributes: { site_post: true } } } });
    expect(readOnly.status).toBe(422);
    expect(errorOf(readOnly)?.source?.pointer).toBe('/data/attributes/site_post');
    const blank = await api('PATCH', `/blog-posts/${created.id}`, { token: alice.token, body: { data: { type: 'blog_post', id: created.id, attributes: { title: '' } } } });
    expect(blank.status).toBe(422);
    expect((await api('PATCH', '/blog-posts/987654', { token: alice.token, body: { data: { type: 'blog_post', id: '987654', attributes: { title: 'x' } } } })).status).toBe(404);
    expect((await api('PATCH', '/blog-posts/987654', { token: alice.token, body: { data: { type: 'blog_post', id: '987654', attributes: { num_views: 1 } } } })).status).toBe(404);
  });

  it('deletes only for the author: 403 for others, 204 for the author, then 404', async () => {
    const created = await create(alice);
    expect((await api('DELETE', `/blog-posts/${created.id}`, { token: bob.token })).status).toBe(403);
    expect((await api('DELETE', `/blog-posts/${created.id}`, { token: noScopes.token })).status).toBe(403);
    const deleted = await api('DELETE', `/blog-posts/${created.id}`, { token: alice.token });
    expect(deleted.status).toBe(204);
    expect((await api('GET', `/blog-posts/${created.id}`)).status).toBe(404);
    expect((await api('DELETE', `/blog-posts/${created.id}`, { token: alice.token })).status).toBe(404);
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
    for (const token of [everything.token, alice.token]) {
      const patch = await api('PATCH', `/blog-posts/${announcement}`, { token, body: { data: { type: 'blog_post', id: announcement, attributes: { title: 'Hacked' } } } });
      expect(patch.status).toBe(403);
      expect(errorOf(patch)?.code).toBe('site_post_immutable');
      const badBody = await api('PATCH', `/blog-posts/${announcement}`, { token, body: { data: { type: 'blog_post', id: announcement, attributes: { num_views: 1e6 } } } });
      expect(errorOf(badBody)?.code).toBe('site_post_immutable');
      const del = await api('DELETE', `/blog-posts/${announcement}`, { token });
      expect(del.status).toBe(403);
      expect(errorOf(del)?.code).toBe('site_post_immutable');
    }
    const withoutScope = await api('DELETE', `/blog-posts/${announcement}`, { token: noScopes.token });
    expect(withoutScope.status).toBe(403);
    expect((await api('GET', `/blog-posts/${announcement}`)).body.data?.attributes.title).toBe('Maintenance tonight');
  });

  it('list and filter like any post, with no author', async () => {
    const site = await api('GET', '/blog-posts?filter[site_post]=true');
    expect(ids(site)).toEqual([untagged, announcement]);
    expect(site.body.data?.[1]).toMatchObject({ attributes: { site_post: true, site_post_tag: 'announcement' }, relationships: { author: { data: null } } });
    expect(ids(await api('GET', '/blog-posts?filter[site_post_tag]=ANNOUNCEMENT'))).toEqual([announcement]);
    expect(ids(await api('GET', '/blog-posts?filter[site_post]=0&filter[site_post_tag]=announcement'))).toEqual([]);
    expect(ids(await api('GET', '/blog-posts?query=maintenance'))).toEqual([announcement]);
    expect(ids(await api('GET', '/blog-posts?filter[site_post]=false&page[size]=100'))).not.toContain(announcement);
  });
});

describe('GET /blog-posts lists', () => {
  let writer: TestUser;
  const p: Record<string, Resource> = {};

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
  const author = () => `filter[author]=${writer.id}`;

  it('defaults to newest first, pages of 20, and links', async () => {
    const answer = await api('GET', `/blog-posts?${author()}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/vnd.api+json');
    expect(ids(answer)).toEqual(all());
    expect(answer.body.links?.self).toBe(`${stack.system.apiUrl}/blog-posts?${author()}`);
    expect(answer.body.links?.first).toBe(`${stack.system.apiUrl}/blog-posts?${author()}`);
    expect(answer.body.links).not.toHaveProperty('next');
    expect(answer.body.data?.[0]?.attributes).not.toHaveProperty('content');
  });

  it('sorts by date_posted ascending, and by relevance with a query (title, then tags, then content)', async () => {
    expect(ids(await api('GET', `/blog-posts?${author()}&sort=date_posted`))).toEqual([...all()].reverse());
    expect(ids(await api('GET', `/blog-posts?${author()}&query=dragon&sort=-relevance`))).toEqual([p.dragonTitle!.id, p.dragonTag!.id, p.dragonContent!.id]);
    expect(ids(await api('GET', `/blog-posts?${author()}&query=dragon&sort=relevance`))).toEqual([p.dragonContent!.id, p.dragonTag!.id, p.dragonTitle!.id]);
    expect(ids(await api('GET', `/blog-posts?${author()}&query=dragon`))).toEqual([p.dragonContent!.id, p.dragonTag!.id, p.dragonTitle!.id]);
  });

  it('filters by ids, tags (any, any case), and combinations', async () => {
    expect(ids(await api('GET', `/blog-posts?filter[ids]=${p.food!.id},${p.plain!.id},987654`))).toEqual([p.plain!.id, p.food!.id]);
    expect(ids(await api('GET', `/blog-posts?${author()}&filter[tags]=FOOD,update`))).toEqual([p.dragonTag!.id, p.food!.id]);
    expect(ids(await api('GET', `/blog-posts?${author()}&filter[tags]=fantasy&query=dragons`))).toEqual([p.dragonTitle!.id]);
    expect(ids(await api('GET', '/blog-posts?filter[author]=987654'))).toEqual([]);
  });

  it('filters date_posted inclusively at exact instants, to the nanosecond, and by whole UTC days', async () => {
    const food = p.food!.attributes.date_posted as string;
    const dragonContent = p.dragonContent!.attributes.date_posted as string;
    const instant = (iso: string, nanos: string) => iso.replace(/(\.\d{3})?Z$/, (_m, ms: string | undefined) => `${(ms ?? '.000').slice(0, 4)}${nanos}Z`);
    expect(ids(await api('GET', `/blog-posts?${author()}&filter[date_posted]=${food},${dragonContent}`))).toEqual([p.dragonContent!.id, p.dragonTag!.id, p.food!.id]);
    expect(ids(await api('GET', `/blog-posts?${author()}&filter[date_posted]=${food}`))).toEqual([p.food!.id]);
    expect(ids(await api('GET', `/blog-posts?${author()}&filter[date_posted]=${instant(food, '000001')},${instant(dragonContent, '999999')}`))).toEqual([p.dragonContent!.id, p.dragonTag!.id]);
    expect(ids(await api('GET', `/blog-posts?${author()}&filter[date_posted]=,${instant(food, '999999')}`))).toEqual([p.food!.id, p.dragonTitle!.id]);
    const today = food.slice(0, 10);
    const dayBefore = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10);
    const dayAfter = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10);
    // The posts were all made just now; skip the whole-day checks in the moment around midnight UTC.
    if ((p.dragonTitle!.attributes.date_posted as string).slice(0, 10) === (p.plain!.attributes.date_posted as string).slice(0, 10)) {
      expect(ids(await api('GET', `/blog-posts?${author()}&filter[date_posted]=${today}`))).toEqual(all());
      expect(ids(await api('GET', `/blog-posts?${author()}&filter[date_posted]=${today},${today}`))).toEqual(all());
    }
    expect(ids(await api('GET', `/blog-posts?${author()}&filter[date_posted]=,${dayBefore}`))).toEqual([]);
    expect(ids(await api('GET', `/blog-posts?${author()}&filter[date_posted]=${dayAfter},`))).toEqual([]);
  });

  it('answers malformed filters, sorts and page sizes with 400 naming the parameter', async () => {
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
      const answer = await api('GET', `/blog-posts?${query}`);
      expect(answer.status, query).toBe(400);
      expect(errorOf(answer), query).toMatchObject({ code, source: { parameter } });
    }
    expect((await api('GET', '/blog-posts?page[size]=100')).status).toBe(200);
    expect((await api('GET', '/blog-posts?page[size]=1')).status).toBe(200);
  });

  it('pages with cursors for every sort: no gaps, no repeats, no next on the last page', async () => {
    for (const query of [`${author()}`, `${author()}&sort=date_posted`, `${author()}&sort=-num_views`, `${author()}&sort=num_views`, `${author()}&query=dragon&sort=-relevance`]) {
      const whole = ids(await api('GET', `/blog-posts?${query}&page[size]=100`));
      for (const size of [1, 2]) {
        const walked = await walk(`/blog-posts?${query}&page[size]=${size}`);
        expect(walked.ids, `${query} size ${size}`).toEqual(whole);
        expect(walked.pages).toBe(Math.max(1, Math.ceil(whole.length / size)));
        expect(walked.last.body.links).not.toHaveProperty('next');
      }
    }
    const full = await api('GET', `/blog-posts?${author()}&page[size]=5`);
    expect(ids(full)).toHaveLength(5);
    expect(full.body.links).not.toHaveProperty('next');
  });

  it('keeps every parameter in links.next, search included, and lets page[size] change between pages', async () => {
    const first = await api('GET', `/blog-posts?query=dragon&${author()}&sort=-relevance&page[size]=1`);
    const next = first.body.links?.next;
    expect(next).toContain('query=dragon');
    expect(next).toContain(`filter[author]=${writer.id}`);
    expect(next).toContain('sort=-relevance');
    const cursor = new URL(next!).searchParams.get('page[cursor]')!;
    const bigger = await api('GET', `/blog-posts?query=dragon&${author()}&sort=-relevance&page[size]=10&page[cursor]=${cursor}`);
    expect(ids(bigger)).toEqual([p.dragonTag!.id, p.dragonContent!.id]);
  });

  it('refuses a cursor with other filters, another sort or query, or another caller (400 invalid_cursor)', async () => {
    const first = await api('GET', `/blog-posts?${author()}&page[size]=1`);
    const cursor = new URL(first.body.links!.next!).searchParams.get('page[cursor]')!;
    for (const [query, token] of [
      [`${author()}&filter[tags]=food`, reader.token],
      [`${author()}&sort=date_posted`, reader.token],
      [`${author()}&query=dragon`, reader.token],
      [`${author()}`, bob.token],
      [`${author()}`, appToken],
    ] as const) {
      const answer = await api('GET', `/blog-posts?${query}&page[size]=1&page[cursor]=${cursor}`, { token });
      expect(answer.status, query).toBe(400);
      expect(errorOf(answer)?.code).toBe('invalid_cursor');
    }
    expect((await api('GET', `/blog-posts?${author()}&page[size]=1&page[cursor]=${cursor}`)).status).toBe(200);
  });

  it('GET /users/:id/blog-posts answers exactly what GET /blog-posts?filter[author]=:id does, `me` included', async () => {
    for (const query of ['', '&sort=date_posted', '&query=dragon&sort=-relevance', '&filter[tags]=food,fantasy', '&page[size]=2', '&fields[blog_post]=title,content']) {
      const filtered = await api('GET', `/blog-posts?${author()}${query}`);
      const byUser = await api('GET', `/users/${writer.id}/blog-posts?${query.slice(1)}`);
      expect(byUser.status).toBe(200);
      expect(byUser.body.data, query).toEqual(filtered.body.data);
      expect(Boolean(byUser.body.links?.next)).toBe(Boolean(filtered.body.links?.next));
    }
    const mine = await api('GET', '/users/me/blog-posts', { token: writer.token });
    expect(ids(mine)).toEqual(all());
    expect((await walk(`/users/${writer.id}/blog-posts?page[size]=2`)).ids).toEqual(all());
    const withAuthor = await api('GET', `/users/${writer.id}/blog-posts?filter[author]=${writer.id}`);
    expect(withAuthor.status).toBe(400);
    expect((await api('GET', '/users/me/blog-posts', { token: appToken })).status).toBe(401);
    expect(ids(await api('GET', '/users/987654/blog-posts'))).toEqual([]);
  });
});

describe('the stories relationship, fed by the stories service’s events', () => {
  it('links only published stories (422 for drafts), hides a link while its story is unpublished, and includes stories and authors', async () => {
    const storyteller = await createTestUser(stack.system, { scopes: ['write_stories', 'write_blog_posts'] });
    const story = await api('POST', '/stories', { token: storyteller.token, body: { data: { type: 'story', attributes: { title: 'The long road' } } } });
    expect(story.status).toBe(201);
    const storyId = story.body.data!.id;
    const link = { stories: { data: [{ type: 'story', id: storyId }] } };
    const body = post({ title: 'About my story', content: 'Read it!' }, link);

    // A draft cannot be linked: the blog learns of the story (StoryCreated, unpublished) and says 422.
    const draft = await eventuallyValue(() => api('POST', '/blog-posts', { token: storyteller.token, body }), (answer) => answer.status === 422, { timeoutMs: 15_000, intervalMs: 100, what: 'the draft to be known' });
    expect(errorOf(draft)?.source?.pointer).toBe('/data/relationships/stories');

    const chapter = await api('POST', `/stories/${storyId}/chapters`, { token: storyteller.token, body: { data: { type: 'chapter', attributes: { title: 'One', content: 'Once upon a time.', published: true } } } });
    expect(chapter.status).toBe(201);
    expect((await api('PATCH', `/stories/${storyId}`, { token: storyteller.token, body: { data: { type: 'story', id: storyId, attributes: { published: true } } } })).status).toBe(200);
    const created = await eventuallyValue(() => api('POST', '/blog-posts?include=stories,stories.author,author', { token: storyteller.token, body }), (answer) => answer.status === 201, { timeoutMs: 15_000, intervalMs: 100, what: 'the published story to be linkable' });
    expect(created.body.data?.relationships?.stories).toEqual({ data: [{ type: 'story', id: storyId }] });
    const included = (created.body as { included?: Resource[] }).included ?? [];
    expect(included.map((resource) => `${resource.type}:${resource.id}`).sort()).toEqual([`story:${storyId}`, `user:${storyteller.id}`].sort());

    expect((await api('PATCH', `/stories/${storyId}`, { token: storyteller.token, body: { data: { type: 'story', id: storyId, attributes: { published: false } } } })).status).toBe(200);
    await eventuallyValue(() => api('GET', `/blog-posts/${created.body.data!.id}`), (answer) => (answer.body.data?.relationships?.stories?.data as unknown[]).length === 0, { timeoutMs: 15_000, intervalMs: 100, what: 'the link to be hidden' });
  });
});

describe('num_blog_posts of the author', () => {
  it('follows creates and deletes of user posts (from blog.post.v1 events), and never counts site posts', async () => {
    const author = await createTestUser(stack.system, { scopes: ['write_blog_posts'] });
    const count = async () => (await api('GET', `/users/${author.id}`)).body.data?.attributes.num_blog_posts;
    const until = (expected: number) => eventuallyValue(count, (seen) => seen === expected, { timeoutMs: 15_000, intervalMs: 100, what: `num_blog_posts ${expected}` });
    expect(await count()).toBe(0);
    const first = await create(author);
    await create(author, { title: 'Second' });
    await until(2);
    await api('PATCH', `/blog-posts/${first.id}`, { token: author.token, body: { data: { type: 'blog_post', id: first.id, attributes: { title: 'Renamed' } } } });
    expect((await api('DELETE', `/blog-posts/${first.id}`, { token: author.token })).status).toBe(204);
    await sitePost('Counted for nobody');
    await until(1);
  });
});

describe('views', () => {
  it('count when a reader fetches the content, once per reader (user, or app for app-only tokens) per 24 hours', async () => {
    const created = await create(alice);
    const read = async (token: string, fields = 'fields[blog_post]=title,content,num_views') => (await api('GET', `/blog-posts/${created.id}?${fields}`, { token })).body.data?.attributes;
    expect(await read(reader.token, 'fields[blog_post]=num_views')).toEqual({ num_views: 0 });
    expect(await read(reader.token)).toMatchObject({ content: 'Some *text*', num_views: 1 });
    expect(await read(reader.token)).toMatchObject({ num_views: 1 });
    expect(await read(bob.token, 'fields[blog_post]=content_html,num_views')).toMatchObject({ content_html: '<p>Some <em>text</em></p>', num_views: 2 });
    expect(await read(appToken)).toMatchObject({ num_views: 3 });
    expect(await read(appToken)).toMatchObject({ num_views: 3 });
    const listed = await api('GET', `/blog-posts?filter[ids]=${created.id}&fields[blog_post]=content,num_views`, { token: noScopes.token });
    expect(listed.body.data?.[0]?.attributes).toMatchObject({ num_views: 4 });
    const sorted = await api('GET', `/blog-posts?filter[ids]=${created.id}&sort=-num_views`);
    expect(sorted.body.data?.[0]?.attributes.num_views).toBe(4);
  });
});

describe('GET /blog-posts/:id', () => {
  it('answers 404 for unknown and non-numeric ids, and 401 without a token', async () => {
    expect((await api('GET', '/blog-posts/987654')).status).toBe(404);
    expect((await api('GET', '/blog-posts/abc')).status).toBe(404);
    expect((await api('GET', '/blog-posts', { token: null })).status).toBe(401);
  });
});

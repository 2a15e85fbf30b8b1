import { createTestUser, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, eventually, expectError, JsonApiClient, ok, walkPages, type Resource } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_request_rules';

let stack: GatewayStack;
let client: JsonApiClient;
let writer: TestUser;
let reader: TestUser;
let story: Resource;
let chapterIds: string[];

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  [writer, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'write_blog_posts', 'write_pms', 'read_pms'] }),
    createTestUser(stack.system),
  ]);
  const auth = { headers: client.auth(writer.token) };
  story = ok(answer(await client.typed.POST('/stories', { body: { data: { type: 'story', attributes: { title: 'Read in one go' } } }, ...auth })), 201).data!;
  chapterIds = [];
  for (const [title, content] of [['One', 'The *first* words.'], ['Two', 'The second words.']] as const) {
    const body = { data: { type: 'chapter' as const, attributes: { title, content, published: true } } };
    chapterIds.push(ok(answer(await client.typed.POST('/stories/{id}/chapters', { params: { path: { id: story.id } }, body, ...auth })), 201).data!.id);
  }
  ok(answer(await client.typed.PATCH('/stories/{id}', { params: { path: { id: story.id } }, body: { data: { type: 'story', id: story.id, attributes: { published: true } } }, ...auth })));
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

const chapters = (fields: string | undefined, token = reader.token) =>
  client.typed.GET('/stories/{id}/chapters', { params: { path: { id: story.id }, query: fields === undefined ? {} : { 'fields[chapter]': fields } }, headers: client.auth(token) }).then(answer);
const chapterViews = async (id: string): Promise<number> =>
  ok(answer(await client.typed.GET('/chapters/{id}', { params: { path: { id } }, headers: client.auth(writer.token) }))).data!.attributes.num_views as number;

describe('GET /stories/:id/chapters with content (docs/api/stories.md, "Chapter lists with content")', () => {
  it('returns content and content_html only when fields[chapter] names them', async () => {
    // As the author, whose reads count no views (the next test counts them).
    const plain = ok(await chapters(undefined, writer.token)).data!;
    expect(plain.map((chapter) => chapter.attributes.title)).toEqual(['One', 'Two']);
    expect(plain.every((chapter) => !('content' in chapter.attributes) && !('content_html' in chapter.attributes))).toBe(true);

    const full = ok(await chapters('title,content,content_html', writer.token)).data!;
    expect(full.map((chapter) => chapter.attributes)).toEqual([
      { title: 'One', content: 'The *first* words.', content_html: '<p>The <em>first</em> words.</p>' },
      { title: 'Two', content: 'The second words.', content_html: '<p>The second words.</p>' },
    ]);
    expect(ok(await chapters('content_html', writer.token)).data!.map((chapter) => Object.keys(chapter.attributes))).toEqual([['content_html'], ['content_html']]);
  });

  it('counts a view of every chapter read through the list, as GET /chapters/:id does', async () => {
    const before = await Promise.all(chapterIds.map(chapterViews));
    expect(before).toEqual([0, 0]);
    const newReader = await createTestUser(stack.system);
    ok(await chapters('content', newReader.token));
    await eventually(() => Promise.all(chapterIds.map(chapterViews)), (views) => views.every((count, i) => count === (before[i] as number) + 1), 'chapter views after a list read');
    // The author reading their own story counts nothing; the same reader again within a day neither.
    ok(await chapters('content', writer.token));
    ok(await chapters('content', newReader.token));
    ok(answer(await client.typed.GET('/chapters/{id}', { params: { path: { id: chapterIds[0]! }, query: { 'fields[chapter]': 'content' } }, headers: client.auth(newReader.token) })));
    const third = await createTestUser(stack.system);
    ok(answer(await client.typed.GET('/chapters/{id}', { params: { path: { id: chapterIds[1]! }, query: { 'fields[chapter]': 'content' } }, headers: client.auth(third.token) })));
    // The third reader's view is the last event: once it shows, the others would have too.
    const views = await eventually(() => Promise.all(chapterIds.map(chapterViews)), (counts) => counts[1] === (before[1] as number) + 2, 'the third reader');
    expect(views).toEqual([(before[0] as number) + 1, (before[1] as number) + 2]);
  });
});

describe('request media types (JSON:API 1.1)', () => {
  const body = (title: string) => ({ data: { type: 'story', attributes: { title } } });
  const post = (contentType: string, title: string) => client.call('POST', '/stories', { token: writer.token, body: body(title), headers: { 'Content-Type': contentType } });

  it('refuses application/vnd.api+json with any media type parameter but profile', async () => {
    for (const type of ['application/vnd.api+json; charset=utf-8', 'application/vnd.api+json; version=1', 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"']) {
      expectError(await post(type, 'Refused'), 415, 'unsupported_media_type');
    }
    ok(await post('application/vnd.api+json; profile="https://example.com/reading"', 'With a profile'), 201);
  });

  it('accepts application/json with charset=utf-8', async () => {
    ok(await post('application/json; charset=utf-8', 'Plain JSON'), 201);
    expectError(await post('application/json; charset=iso-8859-1', 'Latin'), 415, 'unsupported_media_type');
  });
});

describe('bodies that break JSON:API structure, and NUL characters', () => {
  const post = (path: string, data: unknown) => client.call('POST', path, { token: writer.token, body: { data } });

  it('answers a relationship that is not an object with data as 400 invalid_body at its pointer', async () => {
    expectError(await post('/stories', { type: 'story', attributes: { title: 'Tagged' }, relationships: { tags: [{ type: 'tag', id: 'g:1' }] } }), 400, 'invalid_body', { pointer: '/data/relationships/tags' });
    expectError(await post('/stories', { type: 'story', attributes: { title: 'Tagged' }, relationships: { tags: { data: ['g:1'] } } }), 400, 'invalid_body', { pointer: '/data/relationships/tags/data/0' });
  });

  it('refuses text with a NUL character as 422 validation_failed at its pointer, in every service, and stores nothing', async () => {
    expectError(await post('/stories', { type: 'story', attributes: { title: 'Nul\u0000title' } }), 422, 'validation_failed', { pointer: '/data/attributes/title' });
    expectError(await post(`/stories/${story.id}/chapters`, { type: 'chapter', attributes: { title: 'Fine', content: 'a\u0000b' } }), 422, 'validation_failed', { pointer: '/data/attributes/content' });
    expectError(await post('/blog-posts', { type: 'blog_post', attributes: { title: 'Post', content: 'Body', tags: ['ok', 'n\u0000ul'] } }), 422, 'validation_failed', { pointer: '/data/attributes/tags/1' });
    expectError(await post(`/users/${reader.id}/private-messages`, { type: 'private_message', attributes: { subject: 'Hi', content: 'x\u0000' } }), 422, 'validation_failed', { pointer: '/data/attributes/content' });
    const titles = (await walkPages((next) => client.as(writer.token).GET('/users/{id}/stories', { params: { path: { id: 'me' }, query: { 'page[size]': 100 } }, ...next }))).map((found) => found.attributes.title);
    expect(titles.some((title) => String(title).includes('\u0000'))).toBe(false);
  });

  it('answers a NUL character in a query parameter as 400 invalid_parameter naming it', async () => {
    const cases: [string, string][] = [
      ['/stories?query=a%00b', 'query'],
      ['/users/me/private-messages?filter[subject]=a%00b', 'filter[subject]'],
      ['/blog-posts?filter[tags]=a%00b', 'filter[tags]'],
      [`/chapters/${chapterIds[0]}?fields[chapter]=title%00`, 'fields[chapter]'],
    ];
    for (const [path, parameter] of cases) expectError(await client.call('GET', path, { token: writer.token }), 400, 'invalid_parameter', { parameter });
  });
});

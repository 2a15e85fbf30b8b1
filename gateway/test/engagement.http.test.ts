import { createAppToken, createTestUser, eventuallyValue, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '@inkwell/client';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, expectError, follow, JsonApiClient, ok, type Answer, type FollowOptions } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_engagement';
/** How long event-driven counts may take to show. */
const EVENTUAL_MS = 20_000;

let stack: GatewayStack;
let client: JsonApiClient;
/** Writes stories; votes and comments too. */
let author: TestUser;
/** Votes and comments on the author's stories. */
let fan: TestUser;
/** Comments, but is neither the comment's nor the story's author of the fan's comments. */
let bystander: TestUser;
/** No scopes at all. */
let reader: TestUser;
let appToken: string;
let story: Story;
let draft: Story;

type Story = components['schemas']['StoryResource'];
type Vote = components['schemas']['PutStoriesByIdRatingRequest']['data']['attributes']['value'];

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  [author, fan, bystander, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'write_ratings', 'write_comments'] }),
    createTestUser(stack.system, { scopes: ['write_ratings', 'write_comments'] }),
    createTestUser(stack.system, { scopes: ['write_ratings', 'write_comments'] }),
    createTestUser(stack.system),
  ]);
  appToken = (await createAppToken(stack.system, { scopes: ['write_ratings', 'write_comments'] })).token;
  story = await createStory('Rated story');
  await createChapter(story.id);
  ok(await api(author.token).PATCH('/stories/{id}', { params: { path: { id: story.id } }, body: { data: { type: 'story', id: story.id, attributes: { published: true } } } }));
  draft = await createStory('Quiet draft');
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

/** The typed client (checked against the API document) as `token`, the reader's by default. */
const api = (token?: string) => client.as(token);
/** A raw request as `token`: for bodies the API document says are invalid, sent on purpose. */
const raw = (method: string, path: string, token: string, body: unknown): Promise<Answer> => client.call(method, path, { token, body });
const story$ = (id: string) => ({ params: { path: { id } } });

async function createStory(title: string): Promise<Story> {
  return ok(await api(author.token).POST('/stories', { body: { data: { type: 'story', attributes: { title } } } }), 201).data;
}

async function createChapter(storyId: string): Promise<void> {
  ok(await api(author.token).POST('/stories/{id}/chapters', { ...story$(storyId), body: { data: { type: 'chapter', attributes: { title: 'One', content: 'a few words', published: true } } } }), 201);
}

const vote = async (value: Vote, token = fan.token): Promise<Answer> => answer(await api(token).PUT('/stories/{id}/rating', { ...story$(story.id), body: { data: { type: 'rating', attributes: { value } } } }));
const unvote = async (token: string): Promise<Answer> => answer(await api(token).DELETE('/stories/{id}/rating', story$(story.id)));

const comment = (storyId: string, content: string, token = fan.token) => api(token).POST('/stories/{id}/comments', { ...story$(storyId), body: { data: { type: 'comment', attributes: { content } } } });
const uncomment = async (id: string, token: string): Promise<Answer> => answer(await api(token).DELETE('/comments/{id}', { params: { path: { id } } }));

/** Polls the story until `accept` holds for its attributes (counts follow from events), or fails at the deadline. */
async function eventually(accept: (attributes: Story['attributes']) => boolean): Promise<Story['attributes']> {
  return eventuallyValue(async () => ok(await api().GET('/stories/{id}', story$(story.id))).data.attributes, accept, { timeoutMs: EVENTUAL_MS, intervalMs: 200, what: 'the story counts' });
}

async function commentIds(storyId: string): Promise<string[]> {
  return ok(await api().GET('/stories/{id}/comments', { params: { path: { id: storyId }, query: { 'page[size]': 100 } } })).data.map((item) => item.id);
}

describe('ratings', () => {
  it('likes, changes to dislike and withdraws, with 204 each time; the story counts and rating follow', async () => {
    const liked = await vote('like');
    expect(liked.status, JSON.stringify(liked.body)).toBe(204);
    const afterLike = await eventually((counts) => counts.num_likes === 1);
    expect(afterLike.num_dislikes).toBe(0);
    expect(afterLike.rating).not.toBeNull();

    expect((await vote('dislike')).status).toBe(204);
    const afterDislike = await eventually((counts) => counts.num_dislikes === 1);
    expect(afterDislike.num_likes).toBe(0);

    expect((await unvote(fan.token)).status).toBe(204);
    const afterDelete = await eventually((counts) => counts.num_dislikes === 0);
    expect(afterDelete.num_likes).toBe(0);
    expect(afterDelete.rating).toBeNull();
    expect((await unvote(fan.token)).status).toBe(204);
  });

  it('refuses a vote on one’s own story with 403', async () => {
    expectError(await vote('like', author.token), 403, 'forbidden');
  });

  it('validates the body: wrong type 409, bad value 422 at /data/attributes/value, not a single resource 400', async () => {
    // Each body breaks the document on purpose: sent raw.
    const put = (body: unknown) => raw('PUT', `/stories/${story.id}/rating`, fan.token, body);
    expectError(await put({ data: { type: 'story', attributes: { value: 'like' } } }), 409, 'conflict', { pointer: '/data/type' });
    expectError(await put({ data: { type: 'rating', attributes: { value: 'love' } } }), 422, 'validation_failed', { pointer: '/data/attributes/value' });
    expectError(await put({ data: { type: 'rating', attributes: {} } }), 422, 'validation_failed', { pointer: '/data/attributes/value' });
    expectError(await put({ data: [] }), 400, 'invalid_body');
  });

  it('needs write_ratings (insufficient_scope with WWW-Authenticate) and a user (an app-only token is 403)', async () => {
    const noScope = await vote('like', reader.token);
    expectError(noScope, 403, 'insufficient_scope');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="write_ratings"');
    expectError(await unvote(reader.token), 403, 'insufficient_scope');
    expectError(await vote('like', appToken), 403, 'forbidden');
  });

  it('only on published stories: another user’s draft 404, one’s own draft 422', async () => {
    const like = { body: { data: { type: 'rating' as const, attributes: { value: 'like' as const } } } };
    expectError(await api(fan.token).PUT('/stories/{id}/rating', { ...story$(draft.id), ...like }), 404, 'not_found');
    expectError(await api(author.token).PUT('/stories/{id}/rating', { ...story$(draft.id), ...like }), 422, 'validation_failed');
  });

  it('answers 404 for a story that does not exist', async () => {
    expectError(await api(fan.token).PUT('/stories/{id}/rating', { ...story$('987654321'), body: { data: { type: 'rating', attributes: { value: 'like' } } } }), 404, 'not_found');
  });
});

describe('comments', () => {
  it('creates with 201, no Location and no links.self; lists oldest first with include=author; counts follow', async () => {
    const created = await comment(story.id, 'Lovely *prose*.');
    const resource = ok(created, 201).data!;
    expect(created.response.headers.get('location')).toBeNull();
    expect(resource.type).toBe('comment');
    expect(resource.links).toBeUndefined();
    expect(resource.attributes.content).toBe('Lovely *prose*.');
    expect(resource.attributes.content_html).toContain('<em>prose</em>');
    expect(Date.parse(resource.attributes.date_posted!)).not.toBeNaN();
    expect(resource.relationships?.author?.data).toEqual({ type: 'user', id: fan.id });
    expect(resource.relationships?.story?.data).toEqual({ type: 'story', id: story.id });

    const second = ok(await comment(story.id, 'Agreed.', bystander.token), 201).data!;
    const listed = ok(await api().GET('/stories/{id}/comments', { params: { path: { id: story.id }, query: { include: 'author' } } }));
    expect(listed.data.map((item) => item.id)).toEqual([resource.id, second.id]);
    expect(listed.data[0]!.links).toBeUndefined();
    expect(listed.included?.map((user) => `${user.type}:${user.id}`).sort()).toEqual([`user:${bystander.id}`, `user:${fan.id}`].sort());

    const page = (next?: FollowOptions) => api().GET('/stories/{id}/comments', { params: { path: { id: story.id }, query: { 'page[size]': 1 } }, ...next });
    const firstPage = ok(await page());
    expect(firstPage.data.map((item) => item.id)).toEqual([resource.id]);
    const secondPage = ok(await page(follow(firstPage.links.next!)));
    expect(secondPage.data.map((item) => item.id)).toEqual([second.id]);

    await eventually((counts) => counts.num_comments === 2);
  });

  it('deletes by the comment’s author or the story’s author, 403 for anyone else', async () => {
    const mine = ok(await comment(story.id, 'To be withdrawn.'), 201).data!;
    const another = ok(await comment(story.id, 'To be moderated.'), 201).data!;
    expectError(await uncomment(mine.id, bystander.token), 403, 'forbidden');
    expect((await uncomment(mine.id, fan.token)).status).toBe(204);
    expect((await uncomment(another.id, author.token)).status).toBe(204);
    const remaining = await commentIds(story.id);
    expect(remaining).not.toContain(mine.id);
    expect(remaining).not.toContain(another.id);
    expectError(await uncomment(mine.id, fan.token), 404, 'not_found');
  });

  it('only on published stories: another user’s draft 404, one’s own draft 422', async () => {
    expectError(await comment(draft.id, 'Hello?'), 404, 'not_found');
    expectError(await comment(draft.id, 'Note to self.', author.token), 422, 'validation_failed');
    expectError(await api().GET('/stories/{id}/comments', story$(draft.id)), 404, 'not_found');
  });

  it('refuses blank content on a story the caller cannot see with 404: another user’s draft, or none', async () => {
    expectError(await comment(draft.id, '   '), 404, 'not_found');
    expectError(await comment('987654321', '   '), 404, 'not_found');
  });

  it('validates content: empty 422, missing 422, wrong type 409', async () => {
    expectError(await comment(story.id, '   '), 422, 'validation_failed', { pointer: '/data/attributes/content' });
    // Bodies the document refuses: sent raw.
    expectError(await raw('POST', `/stories/${story.id}/comments`, fan.token, { data: { type: 'comment', attributes: {} } }), 422, 'validation_failed', { pointer: '/data/attributes/content' });
    expectError(await raw('POST', `/stories/${story.id}/comments`, fan.token, { data: { type: 'rating', attributes: { content: 'x' } } }), 409, 'conflict');
  });

  it('needs write_comments (insufficient_scope with WWW-Authenticate) and a user (an app-only token is 403)', async () => {
    const noScope = await comment(story.id, 'Hi', reader.token);
    expectError(noScope, 403, 'insufficient_scope');
    expect(noScope.response.headers.get('www-authenticate')).toContain('scope="write_comments"');
    expectError(await uncomment('1', reader.token), 403, 'insufficient_scope');
    expectError(await comment(story.id, 'Hi', appToken), 403, 'forbidden');
    ok(await api(appToken).GET('/stories/{id}/comments', story$(story.id)));
  });
});

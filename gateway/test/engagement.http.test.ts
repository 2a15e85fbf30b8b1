import { createAppToken, createTestUser, eventuallyValue, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';

const DATABASE = 'inkwell_test_gateway_engagement';
/** How long event-driven counts may take to show. */
const EVENTUAL_MS = 20_000;

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
  links?: { self: string; next?: string };
  errors?: { status: string; code: string; detail: string; source?: { pointer?: string; parameter?: string } }[];
}

interface Answer {
  status: number;
  headers: Headers;
  body: Body;
}

let stack: GatewayStack;
/** Writes stories; votes and comments too. */
let author: TestUser;
/** Votes and comments on the author's stories. */
let fan: TestUser;
/** Comments, but is neither the comment's nor the story's author of the fan's comments. */
let bystander: TestUser;
/** No scopes at all. */
let reader: TestUser;
let appToken: string;
let story: Resource;
let draft: Resource;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  [author, fan, bystander, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'write_ratings', 'write_comments'] }),
    createTestUser(stack.system, { scopes: ['write_ratings', 'write_comments'] }),
    createTestUser(stack.system, { scopes: ['write_ratings', 'write_comments'] }),
    createTestUser(stack.system),
  ]);
  appToken = (await createAppToken(stack.system, { scopes: ['write_ratings', 'write_comments'] })).token;
  story = await createStory('Rated story');
  await createChapter(story.id);
  ok(await api('PATCH', `/stories/${story.id}`, { token: author.token, body: { data: { type: 'story', id: story.id, attributes: { published: true } } } }));
  draft = await createStory('Quiet draft');
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

async function api(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? reader.token}` };
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

function expectError(answer: Answer, status: number, code: string, pointer?: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.errors?.[0]?.code).toBe(code);
  if (pointer !== undefined) expect(answer.body.errors?.[0]?.source?.pointer).toBe(pointer);
}

async function createStory(title: string): Promise<Resource> {
  return ok(await api('POST', '/stories', { token: author.token, body: { data: { type: 'story', attributes: { title } } } }), 201).data!;
}

async function createChapter(storyId: string): Promise<void> {
  ok(await api('POST', `/stories/${storyId}/chapters`, { token: author.token, body: { data: { type: 'chapter', attributes: { title: 'One', content: 'a few words', published: true } } } }), 201);
}

const vote = (value: unknown, token = fan.token, type = 'rating'): Promise<Answer> =>
  api('PUT', `/stories/${story.id}/rating`, { token, body: { data: { type, attributes: { value } } } });

const comment = (storyId: string, content: unknown, token = fan.token): Promise<Answer> =>
  api('POST', `/stories/${storyId}/comments`, { token, body: { data: { type: 'comment', attributes: { content } } } });

/** Polls the story until `accept` holds for its attributes (counts follow from events), or fails at the deadline. */
async function eventually(accept: (attributes: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return eventuallyValue(async () => ok(await api('GET', `/stories/${story.id}`)).data!.attributes, accept, { timeoutMs: EVENTUAL_MS, intervalMs: 200, what: 'the story counts' });
}

async function commentIds(storyId: string): Promise<string[]> {
  return ok(await api('GET', `/stories/${storyId}/comments?page[size]=100`)).data!.map((item) => item.id);
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

    expect((await api('DELETE', `/stories/${story.id}/rating`, { token: fan.token })).status).toBe(204);
    const afterDelete = await eventually((counts) => counts.num_dislikes === 0);
    expect(afterDelete.num_likes).toBe(0);
    expect(afterDelete.rating).toBeNull();
    expect((await api('DELETE', `/stories/${story.id}/rating`, { token: fan.token })).status).toBe(204);
  });

  it('refuses a vote on one’s own story with 403', async () => {
    expectError(await vote('like', author.token), 403, 'forbidden');
  });

  it('validates the body: wrong type 409, bad value 422 at /data/attributes/value, not a single resource 400', async () => {
    expectError(await vote('like', fan.token, 'story'), 409, 'conflict', '/data/type');
    expectError(await vote('love'), 422, 'validation_failed', '/data/attributes/value');
    expectError(await api('PUT', `/stories/${story.id}/rating`, { token: fan.token, body: { data: { type: 'rating', attributes: {} } } }), 422, 'validation_failed', '/data/attributes/value');
    expectError(await api('PUT', `/stories/${story.id}/rating`, { token: fan.token, body: { data: [] } }), 400, 'invalid_body');
  });

  it('needs write_ratings (insufficient_scope with WWW-Authenticate) and a user (an app-only token is 403)', async () => {
    const noScope = await vote('like', reader.token);
    expectError(noScope, 403, 'insufficient_scope');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="write_ratings"');
    expectError(await api('DELETE', `/stories/${story.id}/rating`, { token: reader.token }), 403, 'insufficient_scope');
    expectError(await vote('like', appToken), 403, 'forbidden');
  });

  it('only on published stories: another user’s draft 404, one’s own draft 422', async () => {
    const body = { data: { type: 'rating', attributes: { value: 'like' } } };
    expectError(await api('PUT', `/stories/${draft.id}/rating`, { token: fan.token, body }), 404, 'not_found');
    expectError(await api('PUT', `/stories/${draft.id}/rating`, { token: author.token, body }), 422, 'validation_failed');
  });

  it('answers 404 for a story that does not exist', async () => {
    expectError(await api('PUT', '/stories/987654321/rating', { token: fan.token, body: { data: { type: 'rating', attributes: { value: 'like' } } } }), 404, 'not_found');
  });
});

describe('comments', () => {
  it('creates with 201, no Location and no links.self; lists oldest first with include=author; counts follow', async () => {
    const created = await comment(story.id, 'Lovely *prose*.');
    const resource = ok(created, 201).data!;
    expect(created.headers.get('location')).toBeNull();
    expect(resource.type).toBe('comment');
    expect(resource.links).toBeUndefined();
    expect(resource.attributes.content).toBe('Lovely *prose*.');
    expect(resource.attributes.content_html).toContain('<em>prose</em>');
    expect(Date.parse(resource.attributes.date_posted as string)).not.toBeNaN();
    expect(resource.relationships?.author?.data).toEqual({ type: 'user', id: fan.id });
    expect(resource.relationships?.story?.data).toEqual({ type: 'story', id: story.id });

    const second = ok(await comment(story.id, 'Agreed.', bystander.token), 201).data!;
    const listed = ok(await api('GET', `/stories/${story.id}/comments?include=author`));
    expect(listed.data!.map((item) => item.id)).toEqual([resource.id, second.id]);
    expect(listed.data![0]!.links).toBeUndefined();
    expect(listed.included?.map((user) => `${user.type}:${user.id}`).sort()).toEqual([`user:${bystander.id}`, `user:${fan.id}`].sort());

    const firstPage = ok(await api('GET', `/stories/${story.id}/comments?page[size]=1`));
    expect(firstPage.data!.map((item) => item.id)).toEqual([resource.id]);
    const secondPage = ok(await api('GET', firstPage.links!.next!));
    expect(secondPage.data!.map((item) => item.id)).toEqual([second.id]);

    await eventually((counts) => counts.num_comments === 2);
  });

  it('deletes by the comment’s author or the story’s author, 403 for anyone else', async () => {
    const mine = ok(await comment(story.id, 'To be withdrawn.'), 201).data!;
    const another = ok(await comment(story.id, 'To be moderated.'), 201).data!;
    expectError(await api('DELETE', `/comments/${mine.id}`, { token: bystander.token }), 403, 'forbidden');
    expect((await api('DELETE', `/comments/${mine.id}`, { token: fan.token })).status).toBe(204);
    expect((await api('DELETE', `/comments/${another.id}`, { token: author.token })).status).toBe(204);
    const remaining = await commentIds(story.id);
    expect(remaining).not.toContain(mine.id);
    expect(remaining).not.toContain(another.id);
    expectError(await api('DELETE', `/comments/${mine.id}`, { token: fan.token }), 404, 'not_found');
  });

  it('only on published stories: another user’s draft 404, one’s own draft 422', async () => {
    expectError(await comment(draft.id, 'Hello?'), 404, 'not_found');
    expectError(await comment(draft.id, 'Note to self.', author.token), 422, 'validation_failed');
    expectError(await api('GET', `/stories/${draft.id}/comments`), 404, 'not_found');
  });

  it('validates content: empty 422, missing 422, wrong type 409', async () => {
    expectError(await comment(story.id, '   '), 422, 'validation_failed', '/data/attributes/content');
    expectError(await api('POST', `/stories/${story.id}/comments`, { token: fan.token, body: { data: { type: 'comment', attributes: {} } } }), 422, 'validation_failed', '/data/attributes/content');
    expectError(await api('POST', `/stories/${story.id}/comments`, { token: fan.token, body: { data: { type: 'rating', attributes: { content: 'x' } } } }), 409, 'conflict');
  });

  it('needs write_comments (insufficient_scope with WWW-Authenticate) and a user (an app-only token is 403)', async () => {
    const noScope = await comment(story.id, 'Hi', reader.token);
    expectError(noScope, 403, 'insufficient_scope');
    expect(noScope.headers.get('www-authenticate')).toContain('scope="write_comments"');
    expectError(await api('DELETE', '/comments/1', { token: reader.token }), 403, 'insufficient_scope');
    expectError(await comment(story.id, 'Hi', appToken), 403, 'forbidden');
    ok(await api('GET', `/stories/${story.id}/comments`, { token: appToken }));
  });
});

import { createTestUser, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, JsonApiClient, ok, type Answer } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_render_queue';
/** 256 KiB of `![`: valid Markdown that keeps a render worker busy for most of a second. */
const SLOW_MARKDOWN = '!['.repeat(128 * 1024);
/**
 * Every service renders with one worker and lets a caller hold 2 texts; the render deadline of
 * 20 s makes the retry hint 20 s; the gateway waits for the service as long as rendering takes.
 */
const ENV = { MARKDOWN_RENDER_WORKERS: '1', MARKDOWN_RENDER_TEXTS_PER_CALLER: '2', MARKDOWN_RENDER_DEADLINE_MS: '20000', GRPC_DEADLINE_MS: '60000' };

let stack: GatewayStack;
let client: JsonApiClient;
let writer: TestUser;
let neighbour: TestUser;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE, ENV);
  [writer, neighbour] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }),
  ]);
  client = new JsonApiClient(stack.system.apiUrl, () => writer.token);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

async function createStory(user: TestUser, title: string): Promise<string> {
  return ok(await client.as(user.token).POST('/stories', { body: { data: { type: 'story', attributes: { title } } } }), 201).data.id;
}

async function postChapter(user: TestUser, storyId: string, title: string, content: string): Promise<Answer & { title: string }> {
  const result = await client.as(user.token).POST('/stories/{id}/chapters', { params: { path: { id: storyId } }, body: { data: { type: 'chapter', attributes: { title, content } } } });
  return { ...answer(result), title };
}

describe('the render queue of a service, per caller (docs/api/foundation.md, "Markdown")', () => {
  it('answers a caller\'s texts past its bound 429 rate_limited with Retry-After, stores none of them, and serves another user meanwhile', async () => {
    const [storyId, neighbourStoryId] = await Promise.all([createStory(writer, 'Busy'), createStory(neighbour, 'Quiet')]);

    // Four chapters at once, one slow text each: two fit the writer's bound, the later ones arrive
    // while those two still wait or render (one worker, most of a second per text).
    const [neighbours, ...writes] = await Promise.all([
      postChapter(neighbour, neighbourStoryId, 'Meanwhile', 'A *small* chapter.'),
      ...['One', 'Two', 'Three', 'Four'].map((title) => postChapter(writer, storyId, title, SLOW_MARKDOWN)),
    ]);

    const refused = writes.filter((write) => write.status === 429);
    const stored = writes.filter((write) => write.status === 201).map((write) => write.title);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused.length + stored.length).toBe(writes.length);
    for (const write of refused) {
      expect(write.headers.get('retry-after')).toBe('20');
      expect(write.body.errors).toEqual([
        {
          status: '429',
          code: 'rate_limited',
          title: 'Too many requests',
          detail: 'Too many of your texts are waiting to be rendered (at most 2 at once): retry in 20 s.',
          links: { about: expect.stringMatching(/\/docs\/errors\/rate_limited$/) },
        },
      ]);
    }
    expect(neighbours.status).toBe(201);

    const chapters = ok(await client.as(writer.token).GET('/stories/{id}/chapters', { params: { path: { id: storyId } } })).data;
    expect(chapters.map((chapter) => chapter.attributes.title).toSorted()).toEqual(stored.toSorted());
  }, 120_000);
});

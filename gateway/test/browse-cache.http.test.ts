import { createTestUser, eventually, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '@inkwell/client';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { JsonApiClient, ok } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_browse_cache';
/** The staleness bound of the browse page (docs/api/foundation.md, "Caching at the edge") with room for a busy machine. */
const INDEX_WAIT_MS = 10_000;

let stack: GatewayStack;
let client: JsonApiClient;
let author: TestUser;
let reader: TestUser;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  [author, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'read_user'] }),
    createTestUser(stack.system, { scopes: ['read_stories', 'read_user'] }),
  ]);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

type Story = components['schemas']['StoryResource'];

/** The author's browse page (GET /stories filtered to the author, newest first) as `token` sees it, through the typed client. */
async function browse(token: string): Promise<Story[]> {
  return ok(await client.as(token).GET('/stories', { params: { query: { 'filter[author]': author.id } } })).data;
}

/** POST /stories/:id/chapters as the author. */
async function addChapter(storyId: string, attributes: components['schemas']['PostStoriesByIdChaptersRequest']['data']['attributes']): Promise<string> {
  return ok(await client.as(author.token).POST('/stories/{id}/chapters', { params: { path: { id: storyId } }, body: { data: { type: 'chapter', attributes } } }), 201).data.id;
}

/** A published story of the author with one published chapter; returns its id and the chapter's. */
async function publishedStory(title: string): Promise<{ id: string; chapter: string }> {
  const story = ok(await client.as(author.token).POST('/stories', { body: { data: { type: 'story', attributes: { title } } } }), 201).data;
  const chapter = await addChapter(story.id, { title: 'One', content: 'a few words', published: true });
  ok(await patchStory(story.id, { published: true }));
  return { id: story.id, chapter };
}

function patchStory(id: string, attributes: NonNullable<components['schemas']['PatchStoriesByIdRequest']['data']['attributes']>) {
  return client.as(author.token).PATCH('/stories/{id}', { params: { path: { id } }, body: { data: { type: 'story', id, attributes } } });
}

/** `gateway_public_list_cache_entries` of the gateway. */
async function listCacheEntries(): Promise<number> {
  const match = /^gateway_public_list_cache_entries (\d+)$/m.exec(await (await fetch(stack.metricsUrl)).text());
  return Number(match?.[1] ?? Number.NaN);
}

describe('browse page cache at the edge', () => {
  it("shows another user a newly published story and a change within the bound, and the author theirs on their next read", async () => {
    const first = await publishedStory('First');
    await eventually(async () => (await browse(reader.token)).some((story) => story.id === first.id), { timeoutMs: INDEX_WAIT_MS });
    // The reader's page is held now: what follows tests how it is refreshed, not a miss.
    expect(await listCacheEntries()).toBeGreaterThan(0);

    ok(await patchStory(first.id, { title: 'First, renamed' }));
    // The author is on the cached page, so their read goes to the service: the change is there at once.
    expect((await browse(author.token)).find((story) => story.id === first.id)?.attributes.title).toBe('First, renamed');
    await eventually(async () => (await browse(reader.token)).find((story) => story.id === first.id)?.attributes.title === 'First, renamed', { timeoutMs: INDEX_WAIT_MS });

    const second = await publishedStory('Second');
    await eventually(async () => (await browse(reader.token))[0]?.id === second.id, { timeoutMs: INDEX_WAIT_MS });
  });

  it("never shows another user the author's draft chapters, whoever read the page first", async () => {
    const story = await publishedStory('With a draft chapter');
    const draft = { id: await addChapter(story.id, { title: 'Two', content: 'not yet' }) };
    const chapters = async (token: string) => {
      const listed = (await browse(token)).find((found) => found.id === story.id);
      return listed?.relationships?.chapters?.data.map((chapter) => chapter.id);
    };
    // The author reads first: their page (with the draft) is not kept for others.
    await eventually(async () => (await chapters(author.token))?.length === 2, { timeoutMs: INDEX_WAIT_MS });
    expect(await chapters(author.token)).toEqual([story.chapter, draft.id]);
    expect(await chapters(reader.token)).toEqual([story.chapter]);
    // The reader's page may be cached now; the author still gets theirs.
    expect(await chapters(author.token)).toEqual([story.chapter, draft.id]);
    expect(await chapters(reader.token)).toEqual([story.chapter]);
  });

  it('leaves out of every page a story gone back to draft within the bound, and at once for its author', async () => {
    const story = await publishedStory('Soon a draft again');
    await eventually(async () => (await browse(reader.token)).some((found) => found.id === story.id), { timeoutMs: INDEX_WAIT_MS });
    ok(await patchStory(story.id, { published: false }));
    expect((await browse(author.token)).some((found) => found.id === story.id)).toBe(false);
    await eventually(async () => !(await browse(reader.token)).some((found) => found.id === story.id), { timeoutMs: INDEX_WAIT_MS });
  });
});

import { createTestUser, eventually, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';

const DATABASE = 'inkwell_test_gateway_browse_cache';
/** The staleness bound of the browse page (docs/api/foundation.md, "Caching at the edge") with room for a busy machine. */
const INDEX_WAIT_MS = 10_000;

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: { chapters?: { data: { id: string }[] } };
}

interface Answer {
  status: number;
  text: string;
  body: { data?: Resource | Resource[] };
}

let stack: GatewayStack;
let author: TestUser;
let reader: TestUser;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  [author, reader] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'read_user'] }),
    createTestUser(stack.system, { scopes: ['read_stories', 'read_user'] }),
  ]);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

async function api(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const response = await fetch(`${stack.origin}/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, text, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
}

function ok(answer: Answer, status = 200): Answer['body'] {
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
}

/** The author's browse page (GET /stories filtered to the author, newest first) as `token` sees it. */
async function browse(token: string): Promise<Resource[]> {
  return ok(await api('GET', `/stories?filter[author]=${author.id}`, token)).data as Resource[];
}

/** A published story of the author with one published chapter; returns its id and the chapter's. */
async function publishedStory(title: string): Promise<{ id: string; chapter: string }> {
  const story = ok(await api('POST', '/stories', author.token, { data: { type: 'story', attributes: { title } } }), 201).data as Resource;
  const chapter = ok(await api('POST', `/stories/${story.id}/chapters`, author.token, { data: { type: 'chapter', attributes: { title: 'One', content: 'a few words', published: true } } }), 201).data as Resource;
  ok(await api('PATCH', `/stories/${story.id}`, author.token, { data: { type: 'story', id: story.id, attributes: { published: true } } }));
  return { id: story.id, chapter: chapter.id };
}

function patchStory(id: string, attributes: Record<string, unknown>): Promise<Answer> {
  return api('PATCH', `/stories/${id}`, author.token, { data: { type: 'story', id, attributes } });
}

/** `gateway_public_list_cache_entries` of the gateway. */
async function listCacheEntries(): Promise<number> {
  const match = /^gateway_public_list_cache_entries (\d+)$/m.exec(await (await fetch(`${stack.origin}/metrics`)).text());
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
    const draft = ok(await api('POST', `/stories/${story.id}/chapters`, author.token, { data: { type: 'chapter', attributes: { title: 'Two', content: 'not yet' } } }), 201).data as Resource;
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

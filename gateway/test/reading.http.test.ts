import type { components } from '@inkwell/client';
import { createAppToken, createTestUser, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { expectError, JsonApiClient, ok, walkPages } from './support/json-api-client.js';

/**
 * Reading progress (docs/api/stories.md, "Reading progress"): PUT and DELETE /chapters/:id/read,
 * the `read` attribute of chapters, and GET /users/:id/reading, through the gateway with every
 * service running.
 */

const DATABASE = 'inkwell_test_gateway_reading';

let stack: GatewayStack;
let client: JsonApiClient;
/** Writes the stories. */
let writer: TestUser;
/** Reads them, with both bookshelf scopes. */
let reader: TestUser;
/** Another reader with both bookshelf scopes. */
let other: TestUser;
/** Signed in without any scope. */
let bare: TestUser;
let appToken: string;

type Story = components['schemas']['StoryResource'];
type Progress = components['schemas']['ReadingProgressResource'];

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  client = new JsonApiClient(stack.system.apiUrl, () => reader.token);
  [writer, reader, other, bare] = await Promise.all([
    createTestUser(stack.system, { scopes: ['write_stories', 'read_stories', 'read_bookshelves', 'write_bookshelves'] }),
    createTestUser(stack.system, { scopes: ['read_bookshelves', 'write_bookshelves'] }),
    createTestUser(stack.system, { scopes: ['read_bookshelves', 'write_bookshelves'] }),
    createTestUser(stack.system),
  ]);
  appToken = (await createAppToken(stack.system)).token;
}, 300_000);

afterAll(async () => {
  await stack?.stop();
});

const api = (token?: string | null) => client.as(token);
const mark = (chapterId: string, token = reader.token) => client.call('PUT', `/chapters/${chapterId}/read`, { token });
const unmark = (chapterId: string, token = reader.token) => client.call('DELETE', `/chapters/${chapterId}/read`, { token });

async function createStory(title: string): Promise<Story> {
  return ok(await api(writer.token).POST('/stories', { body: { data: { type: 'story', attributes: { title } } } }), 201).data;
}

async function addChapter(storyId: string, isPublished = true): Promise<string> {
  const body = { data: { type: 'chapter' as const, attributes: { title: 'A chapter', content: 'Words to read.', published: isPublished } } };
  return ok(await api(writer.token).POST('/stories/{id}/chapters', { params: { path: { id: storyId } }, body }), 201).data.id;
}

async function setPublished(path: 'story' | 'chapter', id: string, isPublished: boolean): Promise<void> {
  const body = { data: { type: path, id, attributes: { published: isPublished } } };
  if (path === 'story') ok(await api(writer.token).PATCH('/stories/{id}', { params: { path: { id } }, body: body as { data: { type: 'story'; id: string; attributes: { published: boolean } } } }));
  else ok(await api(writer.token).PATCH('/chapters/{id}', { params: { path: { id } }, body: body as { data: { type: 'chapter'; id: string; attributes: { published: boolean } } } }));
}

/** A published story with `chapters` published chapters; their ids in order. */
async function publishedStory(title: string, chapters: number): Promise<{ story: string; chapters: string[] }> {
  const story = await createStory(title);
  const ids: string[] = [];
  for (let i = 0; i < chapters; i++) ids.push(await addChapter(story.id));
  await setPublished('story', story.id, true);
  return { story: story.id, chapters: ids };
}

/** Every entry of `token`'s reading list, walked in pages of `size`. */
const readingList = (token = reader.token, size = 100): Promise<Progress[]> =>
  walkPages((next) => api(token).GET('/users/{id}/reading', { params: { path: { id: 'me' }, query: { 'page[size]': size } }, ...next }));
const linked = (entry: Progress, name: 'last_chapter_read' | 'next_chapter'): string | null => (entry.relationships?.[name]?.data as { id: string } | null | undefined)?.id ?? null;

describe('marking chapters read', () => {
  it('lists started stories with the last chapter read, the unread count and the next chapter, most recent activity first', async () => {
    const long = await publishedStory('Five chapters', 5);
    const short = await publishedStory('One chapter', 1);
    expect((await mark(long.chapters[0]!)).status).toBe(204);
    expect((await mark(long.chapters[2]!)).status).toBe(204);
    expect((await mark(short.chapters[0]!)).status).toBe(204);
    // Marking again is fine and changes nothing but the time.
    expect((await mark(short.chapters[0]!)).status).toBe(204);

    const list = await readingList();
    expect(list.map((entry) => entry.id)).toEqual([short.story, long.story]);
    const [first, second] = list as [Progress, Progress];
    expect(first.type).toBe('reading_progress');
    expect(first.attributes).toMatchObject({ num_chapters_read: 1, num_unread_chapters: 0 });
    expect(linked(first, 'last_chapter_read')).toBe(short.chapters[0]);
    expect(linked(first, 'next_chapter')).toBeNull();
    expect(second.attributes).toMatchObject({ num_chapters_read: 2, num_unread_chapters: 3 });
    expect(linked(second, 'last_chapter_read')).toBe(long.chapters[2]);
    expect(linked(second, 'next_chapter')).toBe(long.chapters[1]);
    expect(Date.parse(first.attributes.date_last_read!)).toBeGreaterThanOrEqual(Date.parse(second.attributes.date_last_read!));

    // Activity on the long story brings it first; unmarking is activity too.
    expect((await unmark(long.chapters[0]!)).status).toBe(204);
    const after = await readingList();
    expect(after.map((entry) => entry.id)).toEqual([long.story, short.story]);
    expect(after[0]!.attributes).toMatchObject({ num_chapters_read: 1, num_unread_chapters: 4 });
    expect(linked(after[0]!, 'next_chapter')).toBe(long.chapters[0]);

    // Unmarking a chapter that is not marked changes nothing; unmarking the last mark ends the story's place on the list.
    expect((await unmark(long.chapters[4]!)).status).toBe(204);
    expect((await unmark(short.chapters[0]!)).status).toBe(204);
    expect((await readingList()).map((entry) => entry.id)).toEqual([long.story]);

    // Includes: the story, its author and both chapters.
    const included = ok(await api().GET('/users/{id}/reading', { params: { path: { id: 'me' }, query: { include: 'story,story.author,last_chapter_read,next_chapter' } } }));
    const types = (included.included ?? []).map((resource) => `${resource.type}:${resource.id}`).sort();
    expect(types).toEqual([`chapter:${long.chapters[0]}`, `chapter:${long.chapters[2]}`, `story:${long.story}`, `user:${writer.id}`].sort());
  });

  it('pages the reading list by last activity without skipping or repeating a story', async () => {
    const stories = [];
    for (let i = 0; i < 5; i++) stories.push(await publishedStory(`Paged ${i}`, 1));
    for (const { chapters } of stories) ok(await mark(chapters[0]!, other.token), 204);
    const all = await readingList(other.token, 2);
    expect(all.map((entry) => entry.id)).toEqual(stories.map(({ story }) => story).reverse());
  });

  it('shows `read` on chapters to a reader with read_bookshelves, and nowhere else', async () => {
    const { story, chapters } = await publishedStory('Flags', 2);
    ok(await mark(chapters[1]!), 204);
    const one = ok(await api().GET('/chapters/{id}', { params: { path: { id: chapters[1]! } } })).data;
    expect(one.attributes.read).toBe(true);
    const listed = ok(await api().GET('/stories/{id}/chapters', { params: { path: { id: story } } })).data;
    expect(listed.map((chapter) => chapter.attributes.read)).toEqual([false, true]);
    const withStory = ok(await api().GET('/stories/{id}', { params: { path: { id: story } , query: { include: 'chapters' } } }));
    expect((withStory.included ?? []).filter((resource) => resource.type === 'chapter').map((chapter) => (chapter.attributes as { read?: boolean }).read)).toEqual([false, true]);
    // Another reader's marks are their own.
    expect(ok(await api(other.token).GET('/chapters/{id}', { params: { path: { id: chapters[1]! } } })).data.attributes.read).toBe(false);
    // Without read_bookshelves, or without a user, the attribute is absent.
    for (const token of [bare.token, appToken]) {
      expect(ok(await api(token).GET('/chapters/{id}', { params: { path: { id: chapters[1]! } } })).data.attributes).not.toHaveProperty('read');
    }
  });
});

describe('visibility and access', () => {
  it('counts only published chapters of published stories, as they are now', async () => {
    const { story, chapters } = await publishedStory('Changing', 3);
    ok(await mark(chapters[0]!, other.token), 204);
    ok(await mark(chapters[1]!, other.token), 204);
    const entry = async () => (await readingList(other.token)).find((item) => item.id === story);
    expect((await entry())!.attributes).toMatchObject({ num_chapters_read: 2, num_unread_chapters: 1 });

    // A chapter unpublished later drops out of the counts and is no longer the last chapter read.
    await setPublished('chapter', chapters[1]!, false);
    const now = (await entry())!;
    expect(now.attributes).toMatchObject({ num_chapters_read: 1, num_unread_chapters: 1 });
    expect(linked(now, 'last_chapter_read')).toBe(chapters[0]);
    expect(linked(now, 'next_chapter')).toBe(chapters[2]);
    // The reader may still take back a mark of it, though the chapter itself is hidden from them now.
    expect((await api(other.token).GET('/chapters/{id}', { params: { path: { id: chapters[1]! } } })).response.status).toBe(404);
    expect((await unmark(chapters[1]!, other.token)).status).toBe(204);
    // A new chapter is unread at once.
    const fourth = await addChapter(story);
    expect((await entry())!.attributes).toMatchObject({ num_chapters_read: 1, num_unread_chapters: 2 });
    ok(await mark(fourth, other.token), 204);
    // A story unpublished leaves the list; published again, it is back as it was.
    await setPublished('story', story, false);
    expect(await entry()).toBeUndefined();
    await setPublished('story', story, true);
    expect((await entry())!.attributes).toMatchObject({ num_chapters_read: 2, num_unread_chapters: 1 });
  });

  it('refuses drafts: another user’s is 404, one’s own 422; unknown chapters 404', async () => {
    const { story } = await publishedStory('With a draft chapter', 1);
    const draftChapter = await addChapter(story, false);
    const draft = await createStory('A draft');
    const ofDraft = await addChapter(draft.id);
    expectError(await mark(draftChapter), 404, 'not_found');
    expectError(await mark(ofDraft), 404, 'not_found');
    expectError(await unmark(ofDraft), 404, 'not_found');
    expectError(await mark('999999999'), 404, 'not_found');
    expectError(await mark(draftChapter, writer.token), 422, 'validation_failed');
    expectError(await mark(ofDraft, writer.token), 422, 'validation_failed');
    expect((await readingList(writer.token)).map((entry) => entry.id)).not.toContain(draft.id);
  });

  it('keeps each reading list to its owner and needs the bookshelf scopes and a user', async () => {
    const { chapters } = await publishedStory('Scoped', 1);
    expectError(await mark(chapters[0]!, bare.token), 403, 'insufficient_scope');
    expectError(await unmark(chapters[0]!, bare.token), 403, 'insufficient_scope');
    expectError(await mark(chapters[0]!, appToken), 403, 'forbidden');
    expectError(await client.call('GET', '/users/me/reading', { token: bare.token }), 403, 'insufficient_scope');
    // `me` needs a user (docs/api/foundation.md); an app naming a user is refused as every user-only call is.
    expectError(await client.call('GET', '/users/me/reading', { token: appToken }), 401, 'invalid_token');
    expectError(await client.call('GET', `/users/${reader.id}/reading`, { token: appToken }), 403, 'forbidden');
    expectError(await client.call('GET', `/users/${other.id}/reading`, { token: reader.token }), 404, 'not_found');
    expect((await client.call('GET', `/users/${reader.id}/reading`, { token: reader.token })).status).toBe(200);
    expectError(await client.call('GET', '/users/me/reading?page[cursor]=nonsense', { token: reader.token }), 400, 'invalid_cursor');
  });
});

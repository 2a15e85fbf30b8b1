import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { caller, startStories, type StoriesHarness } from './harness.js';

/**
 * The visibility matrix of docs/api/stories.md, "Endpoints": the author with and without read_stories, another
 * user and an app-only caller, over every read of stories and chapters.
 */
describe('visibility of drafts', () => {
  let h: StoriesHarness;
  const writer = caller({ userId: '201' }, ['read_stories', 'write_stories']);
  const viewers = {
    authorWithScope: caller({ userId: '201' }, ['read_stories']),
    authorWithoutScope: caller({ userId: '201' }, ['write_stories']),
    otherUser: caller({ userId: '202' }, ['read_stories', 'write_stories']),
    app: caller({ appId: 'visibility-app' }),
  };
  type Viewer = keyof typeof viewers;
  const ids = { published: '', publishedChapter: '', draftChapter: '', draft: '', draftStoryChapter: '' };

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_visibility');
    ids.published = (await h.client.createStory({ title: 'Visible zinnia' }, writer)).story!.id;
    ids.publishedChapter = (await h.client.createChapter({ storyId: ids.published, title: 'Out', content: 'zinnia', published: true }, writer)).chapter!.id;
    ids.draftChapter = (await h.client.createChapter({ storyId: ids.published, title: 'Not yet', content: 'zinnia', published: false }, writer)).chapter!.id;
    await h.client.updateStory({ id: ids.published, published: true }, writer);
    ids.draft = (await h.client.createStory({ title: 'Hidden zinnia' }, writer)).story!.id;
    // A chapter marked published inside a draft story is still a draft to everyone else.
    ids.draftStoryChapter = (await h.client.createChapter({ storyId: ids.draft, title: 'Ready', content: 'zinnia', published: true }, writer)).chapter!.id;    // This harness runs no Kafka consumers: write both stories to the search index as its consumer would.
    await h.indexStories([ids.published, ids.draft]);
  });

  afterAll(async () => {
    await h?.close();
  });

  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { code: string; details: { reason?: string }[] }) => (error.code === ErrorCode.PERMISSION_DENIED ? `403 ${error.details[0]?.reason}` : error.code === ErrorCode.NOT_FOUND ? '404' : error.code),
    );

  const matrix: Record<Viewer, { draftStory: string; draftChapter: string; publishedChapters: 'all' | 'published' }> = {
    authorWithScope: { draftStory: 'ok', draftChapter: 'ok', publishedChapters: 'all' },
    authorWithoutScope: { draftStory: '403 insufficient_scope', draftChapter: '403 insufficient_scope', publishedChapters: 'published' },
    otherUser: { draftStory: '404', draftChapter: '404', publishedChapters: 'published' },
    app: { draftStory: '404', draftChapter: '404', publishedChapters: 'published' },
  };

  it.each(Object.keys(viewers) as Viewer[])('gets stories and chapters by id as %s', async (viewer) => {
    const as = viewers[viewer];
    const expected = matrix[viewer];
    const published = await h.client.getStory({ id: ids.published }, as);
    expect(published.story!.chapterIds).toEqual(expected.publishedChapters === 'all' ? [ids.publishedChapter, ids.draftChapter] : [ids.publishedChapter]);
    expect(await outcome(h.client.getStory({ id: ids.draft }, as))).toBe(expected.draftStory);
    expect(await outcome(h.client.getChapter({ id: ids.publishedChapter, includeContent: true }, as))).toBe('ok');
    expect(await outcome(h.client.getChapter({ id: ids.draftChapter }, as))).toBe(expected.draftChapter);
    expect(await outcome(h.client.getChapter({ id: ids.draftStoryChapter }, as))).toBe(expected.draftChapter);
  });

  it.each(Object.keys(viewers) as Viewer[])('lists chapters as %s', async (viewer) => {
    const as = viewers[viewer];
    const expected = matrix[viewer];
    const chapters = (await h.client.listChapters({ storyId: ids.published }, as)).chapters.map((chapter) => chapter.id);
    expect(chapters).toEqual(expected.publishedChapters === 'all' ? [ids.publishedChapter, ids.draftChapter] : [ids.publishedChapter]);
    expect(await outcome(h.client.listChapters({ storyId: ids.draft }, as))).toBe(expected.draftStory);
    const batch = (await h.client.batchGetChapters({ ids: [ids.draftStoryChapter, ids.draftChapter, ids.publishedChapter] }, as)).chapters.map((c) => c.id);
    expect(batch).toEqual(expected.draftStory === 'ok' ? [ids.draftStoryChapter, ids.draftChapter, ids.publishedChapter] : [ids.publishedChapter]);
  });

  it.each(Object.keys(viewers) as Viewer[])("lists the author's stories, searches and batch-gets as %s", async (viewer) => {
    const as = viewers[viewer];
    const seesDrafts = viewer === 'authorWithScope';
    const list = async (published?: boolean) =>
      (await h.client.listUserStories({ userId: '201', ...(published === undefined ? {} : { published }) }, as)).stories.map((story) => story.id);
    expect((await list()).sort()).toEqual(seesDrafts ? [ids.published, ids.draft].sort() : [ids.published]);
    expect(await list(true)).toEqual([ids.published]);
    if (viewer === 'authorWithoutScope') {
      await expect(list(false)).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'insufficient_scope', scope: 'read_stories' }] });
    } else {
      expect(await list(false)).toEqual(seesDrafts ? [ids.draft] : []);
    }
    const search = await h.client.listStories({ query: 'zinnia' }, as);
    expect(search.stories.map((story) => story.id)).toEqual([ids.published]);
    const batch = await h.client.batchGetStories({ ids: [ids.draft, ids.published, '999999'] }, as);
    expect(batch.stories.map((story) => story.id)).toEqual(seesDrafts ? [ids.draft, ids.published] : [ids.published]);
  });

  it('lists drafts last under the default sort of a user list (they have no publication date)', async () => {
    const stories = (await h.client.listUserStories({ userId: '201' }, viewers.authorWithScope)).stories.map((story) => story.id);
    expect(stories).toEqual([ids.published, ids.draft]);
  });

  it('answers 404 for malformed and unknown ids', async () => {
    await expect(h.client.getStory({ id: '0' }, viewers.app)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.getStory({ id: '123456789' }, viewers.app)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.getChapter({ id: '123456789' }, viewers.app)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.listChapters({ storyId: '123456789' }, viewers.app)).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });
});

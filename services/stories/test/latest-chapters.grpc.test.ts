import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { author, caller, startStories, type StoriesHarness } from './harness.js';

describe('ListLatestChapters (docs/api/updates.md, "Atom feeds")', () => {
  let h: StoriesHarness;
  const writer = author('501');
  const other = author('502');
  let published = { storyId: '', chapterIds: [] as string[] };
  let draftStory = { storyId: '', chapterIds: [] as string[] };
  let othersChapter = '';

  /** A story of `who` with chapters (published or drafts), published when `publish`. */
  async function story(who: ReturnType<typeof author>, chapters: readonly boolean[], publish: boolean): Promise<{ storyId: string; chapterIds: string[] }> {
    const storyId = (await h.client.createStory({ title: 'A story' }, who)).story!.id;
    const chapterIds: string[] = [];
    for (const [index, isPublished] of chapters.entries()) {
      chapterIds.push((await h.client.createChapter({ storyId, title: `Chapter ${index + 1}`, content: 'Words.', published: isPublished }, who)).chapter!.id);
    }
    if (publish) await h.client.updateStory({ id: storyId, published: true }, who);
    return { storyId, chapterIds };
  }

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_latest_chapters');
    published = await story(writer, [true, false, true], true);
    draftStory = await story(writer, [true], false);
    othersChapter = (await story(other, [true], true)).chapterIds[0]!;
    // Published last, so the newest of the author's chapters.
    await h.client.updateChapter({ id: published.chapterIds[1]!, published: true }, writer);
  });

  afterAll(async () => {
    await h?.close();
  });

  it("lists one story's published chapters, newest publication first, the same for its author as for anyone", async () => {
    const [a, b, c] = published.chapterIds;
    for (const who of [caller({}), writer]) {
      const { chapters } = await h.client.listLatestChapters({ source: { case: 'storyId', value: published.storyId } }, who);
      expect(chapters.map((chapter) => chapter.id)).toEqual([b, c, a]);
      expect(chapters.every((chapter) => chapter.content === undefined)).toBe(true);
    }
  });

  it("lists an author's chapters across their published stories only, within the limit", async () => {
    const { chapters } = await h.client.listLatestChapters({ source: { case: 'authorId', value: '501' }, limit: 2 }, caller({}));
    expect(chapters.map((chapter) => chapter.id)).toEqual([published.chapterIds[1], published.chapterIds[2]]);
    const all = (await h.client.listLatestChapters({ source: { case: 'authorId', value: '501' } }, caller({}))).chapters.map((chapter) => chapter.id);
    expect(all).toHaveLength(3);
    expect(all).not.toContain(draftStory.chapterIds[0]);
    expect(all).not.toContain(othersChapter);
  });

  it('lists nothing for a draft story or an unknown id, and refuses a request without a source or over 50', async () => {
    for (const source of [{ case: 'storyId', value: draftStory.storyId }, { case: 'storyId', value: '999999' }, { case: 'authorId', value: '999999' }] as const) {
      for (const who of [caller({}), writer]) expect((await h.client.listLatestChapters({ source }, who)).chapters).toEqual([]);
    }
    await expect(h.client.listLatestChapters({}, caller({}))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(h.client.listLatestChapters({ source: { case: 'storyId', value: published.storyId }, limit: 51 }, caller({}))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

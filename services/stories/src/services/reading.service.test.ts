import { describe, expect, it } from 'vitest';
import { FIRST_PAGE as firstPage, memoryStories, viewers } from '../testing/memory.repositories.js';

const { author, reader, other } = viewers;

/** A clock that moves one second on every reading. */
function ticking(): () => Date {
  let seconds = 0;
  return () => new Date(Date.UTC(2026, 5, 1, 0, 0, seconds++));
}

describe('ReadingService', () => {
  it('marks published chapters only: another user’s draft is 404, one’s own 422', async () => {
    const { data, reading } = memoryStories(ticking());
    const story = data.putStory('900', { published: true });
    const draftChapter = data.putChapter(story, { published: false });
    const draftStory = data.putStory('900');
    const ofDraft = data.putChapter(draftStory);

    await expect(reading.markRead(draftChapter, reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(reading.markRead(ofDraft, reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(reading.markRead(draftChapter, author)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'validation_failed' }] });
    await expect(reading.markRead('999999', reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(reading.markUnread(ofDraft, reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists started stories by last activity with counts over the published chapters as they are now', async () => {
    const { data, reading, chapters } = memoryStories(ticking());
    const first = data.putStory('900', { published: true });
    const [one, two, three] = [data.putChapter(first), data.putChapter(first), data.putChapter(first)];
    const second = data.putStory('900', { published: true });
    const only = data.putChapter(second);

    await reading.markRead(two!, reader);
    await reading.markRead(only, reader);
    let page = await reading.listProgress('901', firstPage, reader);
    expect(page.progress.map((row) => row.storyId)).toEqual([second, first]);
    expect(page.progress[1]).toMatchObject({ lastChapterReadId: two, nextChapterId: one, numChaptersRead: 1, numUnreadChapters: 2 });
    expect(page.progress[0]).toMatchObject({ lastChapterReadId: only, nextChapterId: null, numUnreadChapters: 0 });

    await reading.markRead(one!, reader);
    data.chapters.get(two!)!.published = false;
    page = await reading.listProgress('901', firstPage, reader);
    expect(page.progress[0]).toMatchObject({ storyId: first, lastChapterReadId: one, nextChapterId: three, numChaptersRead: 1, numUnreadChapters: 1 });

    expect((await chapters.getChapter(one!, false, reader)).read).toBe(true);
    expect((await chapters.getChapter(three!, false, reader)).read).toBe(false);
    expect((await chapters.getChapter(one!, false, { userId: '901', scopes: [] })).read).toBeUndefined();
    expect((await reading.listProgress('902', firstPage, other)).progress).toEqual([]);
    await expect(reading.listProgress('901', firstPage, other)).rejects.toMatchObject({ code: 'NOT_FOUND' });

    await reading.markUnread(one!, reader);
    await reading.markUnread(two!, reader);
    page = await reading.listProgress('901', firstPage, reader);
    expect(page.progress.map((row) => row.storyId)).toEqual([second]);
  });

  it('pages the list by last activity', async () => {
    const { data, reading } = memoryStories(ticking());
    const ids = Array.from({ length: 5 }, () => {
      const story = data.putStory('900', { published: true });
      return { story, chapter: data.putChapter(story) };
    });
    for (const { chapter } of ids) await reading.markRead(chapter, reader);
    const seen: string[] = [];
    let after = '';
    do {
      const page = await reading.listProgress('901', { pageSize: 2, after }, reader);
      seen.push(...page.progress.map((row) => row.storyId));
      after = page.nextAfter;
    } while (after !== '');
    expect(seen).toEqual(ids.map(({ story }) => story).reverse());
    await expect(reading.listProgress('901', { pageSize: 2, after: 'nonsense' }, reader)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

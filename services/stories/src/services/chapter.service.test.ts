import { closeMarkdown } from '@inkwell/markdown';
import { afterAll, describe, expect, it } from 'vitest';
import { FIRST_PAGE as firstPage, memoryStories, viewers } from '../testing/memory.repositories.js';

const { author, reader, app } = viewers;
const lastPublishedRefused = { code: 'INVALID_ARGUMENT', details: [{ reason: 'validation_failed' }] };

afterAll(closeMarkdown);

describe('ChapterService visibility', () => {
  it('shows a draft chapter, or any chapter of a draft story, to the author only (404 for others)', async () => {
    const { data, chapters } = memoryStories();
    const published = data.putStory('900', { published: true });
    const draftChapter = data.putChapter(published, { published: false });
    const draft = data.putStory('900');
    const ofDraft = data.putChapter(draft);

    expect((await chapters.getChapter(draftChapter, false, author)).id).toBe(draftChapter);
    await expect(chapters.getChapter(draftChapter, false, reader)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(chapters.getChapter(ofDraft, false, app)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists a story’s draft chapters to its author only, and none of another’s draft story', async () => {
    const { data, chapters } = memoryStories();
    const id = data.putStory('900', { published: true });
    const first = data.putChapter(id);
    const second = data.putChapter(id, { published: false });
    const draft = data.putStory('900');

    expect((await chapters.listChapters(id, firstPage, author)).chapters.map((chapter) => chapter.id)).toEqual([first, second]);
    expect((await chapters.listChapters(id, firstPage, reader)).chapters.map((chapter) => chapter.id)).toEqual([first]);
    await expect(chapters.listChapters(draft, firstPage, reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('leaves chapters the caller may not see out of a batch', async () => {
    const { data, chapters } = memoryStories();
    const id = data.putStory('900', { published: true });
    const shown = data.putChapter(id);
    const hidden = data.putChapter(id, { published: false });

    expect((await chapters.batchGetChapters([hidden, shown], reader)).items.map((chapter) => chapter.id)).toEqual([shown]);
    expect((await chapters.batchGetChapters([hidden, shown], author)).items.map((chapter) => chapter.id)).toEqual([hidden, shown]);
  });
});

describe('ChapterService latest chapters (docs/api/updates.md, "Atom feeds")', () => {
  it('lists published chapters of published stories only, newest first, the same for the author, within the limit', async () => {
    const { data, chapters } = memoryStories();
    const id = data.putStory('900', { published: true });
    const first = data.putChapter(id);
    const draftChapter = data.putChapter(id, { published: false });
    const third = data.putChapter(id);
    const draft = data.putStory('900');
    const ofDraft = data.putChapter(draft);

    for (const source of [{ storyId: id }, { authorId: '900' }]) {
      expect((await chapters.listLatestChapters(source, 0)).map((chapter) => chapter.id)).toEqual([third, first]);
      expect((await chapters.listLatestChapters(source, 1)).map((chapter) => chapter.id)).toEqual([third]);
    }
    expect(await chapters.listLatestChapters({ storyId: draft }, 0)).toEqual([]);
    for (const hidden of [draftChapter, ofDraft]) expect((await chapters.listLatestChapters({ authorId: '900' }, 0)).map((chapter) => chapter.id)).not.toContain(hidden);
    expect(await chapters.listLatestChapters({ storyId: 'abc' }, 0)).toEqual([]);
  });
});

describe('ChapterService views', () => {
  it('counts a read of a published chapter’s content once per reader, never the author’s own, never without content', async () => {
    const { data, chapters } = memoryStories();
    const id = data.putStory('900', { published: true });
    const chapter = data.putChapter(id);

    await chapters.getChapter(chapter, true, reader);
    await chapters.getChapter(chapter, true, reader);
    await chapters.getChapter(chapter, true, app);
    await chapters.getChapter(chapter, true, author);
    await chapters.getChapter(chapter, false, { userId: '902', scopes: [] });
    expect(data.views).toEqual([
      { storyId: id, chapterId: chapter, reader: { userId: '901' } },
      { storyId: id, chapterId: chapter, reader: { appId: 'app' } },
    ]);
  });

  it('counts no view of the author’s own draft chapters', async () => {
    const { data, chapters } = memoryStories();
    const id = data.putStory('900', { published: true });
    data.putChapter(id);
    data.putChapter(id, { published: false });

    await chapters.listChapters(id, firstPage, author, true);
    expect(data.views).toEqual([]);
  });
});

describe('ChapterService writes', () => {
  it('appends a chapter to the author’s story with the next number, content rendered and words counted', async () => {
    const { data, chapters } = memoryStories();
    const id = data.putStory('900');
    data.putChapter(id);

    const chapter = await chapters.createChapter(id, { title: ' Two ', content: 'It was **dark**.', authorsNote: '', published: false }, author);
    expect(chapter).toMatchObject({ storyId: id, chapterNumber: 2, title: 'Two', numWords: 3, published: false });
    expect(chapter.contentHtml).toContain('<strong>dark</strong>');
  });

  it('lets only the author add chapters: 403 on another’s published story, 404 on another’s draft', async () => {
    const { data, chapters } = memoryStories();
    const published = data.putStory('900', { published: true });
    const draft = data.putStory('900');
    const input = { title: 'Mine', content: 'x', authorsNote: '', published: true };

    await expect(chapters.createChapter(published, input, reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(chapters.createChapter(draft, input, reader)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    expect(data.chaptersOf(published)).toEqual([]);
  });

  it('lets only the author change a chapter: 403 on a visible one, 404 on a draft chapter', async () => {
    const { data, chapters } = memoryStories();
    const id = data.putStory('900', { published: true });
    const visible = data.putChapter(id);
    const hidden = data.putChapter(id, { published: false });

    await expect(chapters.updateChapter(visible, { title: 'Mine' }, reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(chapters.updateChapter(visible, { content: 'checked before rendering' }, reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(chapters.updateChapter(hidden, { title: 'Mine' }, reader)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(chapters.deleteChapter(visible, reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('keeps a published story with a published chapter: unpublishing or deleting the last one is refused', async () => {
    const { data, chapters, stories } = memoryStories();
    const id = data.putStory('900', { published: true });
    const last = data.putChapter(id);
    const draft = data.putChapter(id, { published: false });

    await expect(chapters.updateChapter(last, { published: false }, author)).rejects.toMatchObject({
      ...lastPublishedRefused,
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/published' }],
    });
    await expect(chapters.deleteChapter(last, author)).rejects.toMatchObject(lastPublishedRefused);
    await chapters.deleteChapter(draft, author);

    await stories.updateStory(id, { published: false }, author);
    expect((await chapters.updateChapter(last, { published: false }, author)).published).toBe(false);
  });

  it('changes only the fields sent; an empty change keeps the chapter as it was', async () => {
    const { data, chapters } = memoryStories(() => new Date('2026-07-01T00:00:00Z'));
    const id = data.putStory('900');
    const chapter = data.putChapter(id, { title: 'Old', published: false });

    expect((await chapters.updateChapter(chapter, {}, author)).dateModified).toEqual(new Date('2026-01-01T00:00:00Z'));
    const changed = await chapters.updateChapter(chapter, { content: 'Three more words' }, author);
    expect(changed).toMatchObject({ title: 'Old', numWords: 3, dateModified: new Date('2026-07-01T00:00:00Z') });
  });
});

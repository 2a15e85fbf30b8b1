import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { closeMarkdown, configureMarkdown, markdownRenderStats } from '@inkwell/markdown';
import { eventually } from '@inkwell/testing';
import { author, caller, startStories, type StoriesHarness } from './harness.js';

/** 1 MiB of `![`: valid, and seconds of a worker's time (the text of the attack). */
const SLOW_MARKDOWN = '!['.repeat(512 * 1024);

/** The pool is idle: nothing waiting, nothing rendering. */
const idle = () => {
  const stats = markdownRenderStats();
  return stats.waiting === 0 && stats.rendering === 0;
};

describe('StoriesService over gRPC: who may write comes before rendering, and a write past its deadline is not stored (docs/api/foundation.md, "Markdown")', () => {
  let h: StoriesHarness;
  const owner = author('721');
  const intruder = caller({ userId: '722' }, ['read_stories', 'write_stories', 'write_comments']);
  const other = author('723');
  let storyId = '';
  let chapterId = '';
  let draftId = '';
  let otherStoryId = '';

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_render_queue');
    // One worker and a deadline no text here reaches: a slow text keeps the pool busy for seconds.
    configureMarkdown({ workers: 1, deadlineMs: 60_000 });
    storyId = (await h.client.createStory({ title: 'Mine' }, owner)).story!.id;
    chapterId = (await h.client.createChapter({ storyId, title: 'One', content: 'text', published: true }, owner)).chapter!.id;
    await h.client.updateStory({ id: storyId, published: true }, owner);
    draftId = (await h.client.createStory({ title: 'My draft' }, owner)).story!.id;
    otherStoryId = (await h.client.createStory({ title: 'Theirs' }, other)).story!.id;
  });

  afterAll(async () => {
    await h?.close();
    await closeMarkdown();
  });

  it('refuses slow texts for someone else\'s story, chapter or draft without rendering them', async () => {
    await eventually(idle, { what: 'an idle render pool' });
    const before = markdownRenderStats().started;

    await expect(h.client.createChapter({ storyId, title: 'Hijack', content: SLOW_MARKDOWN, authorsNote: SLOW_MARKDOWN }, intruder))
      .rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });
    await expect(h.client.createChapter({ storyId: draftId, title: 'Hijack', content: SLOW_MARKDOWN }, intruder))
      .rejects.toMatchObject({ code: ErrorCode.NOT_FOUND, details: [{ reason: 'not_found' }] });
    await expect(h.client.createChapter({ storyId: '999999999', title: 'Nowhere', content: SLOW_MARKDOWN }, intruder))
      .rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.updateChapter({ id: chapterId, content: SLOW_MARKDOWN }, intruder))
      .rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });
    await expect(h.client.updateStory({ id: storyId, description: SLOW_MARKDOWN }, intruder))
      .rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'forbidden' }] });
    await expect(h.client.createComment({ storyId: draftId, content: SLOW_MARKDOWN }, intruder))
      .rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });

    expect(markdownRenderStats().started).toBe(before);
    const { chapters } = await h.client.listChapters({ storyId, includeContent: true }, owner);
    expect(chapters.map((chapter) => ({ title: chapter.title, content: chapter.content }))).toEqual([{ title: 'One', content: 'text' }]);
    expect((await h.client.getStory({ id: storyId }, owner)).story?.description).toBe('');
  });

  it('does not store a chapter whose deadline passed while its text waited, even once the pool is free', async () => {
    await eventually(idle, { what: 'an idle render pool' });
    const before = markdownRenderStats().started;
    // Another author's slow chapter takes the only worker.
    const blocker = h.client.createChapter({ storyId: otherStoryId, title: 'Slow', content: SLOW_MARKDOWN }, { ...other, deadlineMs: 120_000 });
    await eventually(() => markdownRenderStats().rendering === 1, { what: 'the slow chapter to be rendering' });

    await expect(h.client.createChapter({ storyId, title: 'Too late', content: 'A *short* chapter.' }, { ...owner, deadlineMs: 500 }))
      .rejects.toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });

    // The slow chapter is stored once its text is rendered; the late one never started rendering.
    expect((await blocker).chapter?.title).toBe('Slow');
    await eventually(idle, { what: 'an idle render pool' });
    expect(markdownRenderStats().started).toBe(before + 1);
    const { chapters } = await h.client.listChapters({ storyId }, owner);
    expect(chapters.map((chapter) => chapter.title)).toEqual(['One']);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { HOSTILE_MARKDOWN, MARKDOWN_REFUSAL_DETAIL, whileHostileMarkdownRenders } from '@inkwell/testing';
import { author, caller, startStories, type StoriesHarness } from './harness.js';

const refusedAt = (...pointers: string[]) => ({
  code: ErrorCode.INVALID_ARGUMENT,
  details: pointers.map((pointer) => ({ reason: 'validation_failed', pointer, detail: expect.stringMatching(MARKDOWN_REFUSAL_DETAIL) })),
});

describe('StoriesService over gRPC: Markdown that cannot be rendered within bounds (docs/api/foundation.md, "Markdown")', () => {
  let h: StoriesHarness;
  const writer = author('701');
  const commenter = caller({ userId: '702' }, ['write_comments', 'read_stories']);
  let storyId = '';

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_markdown');
    storyId = (await h.client.createStory({ title: 'Bounded' }, writer)).story!.id;
    await h.client.createChapter({ storyId, title: 'One', content: 'text', published: true }, writer);
    await h.client.updateStory({ id: storyId, published: true }, writer);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('refuses a hostile description at its pointer while another story is written meanwhile', async () => {
    const { error, result, order } = await whileHostileMarkdownRenders(
      () => h.client.updateStory({ id: storyId, description: HOSTILE_MARKDOWN }, writer),
      () => h.client.createStory({ title: 'Ordinary', description: 'An *ordinary* story.' }, author('703')),
    );
    expect(error).toMatchObject(refusedAt('/data/attributes/description'));
    expect(result.story?.descriptionHtml).toBe('<p>An <em>ordinary</em> story.</p>');
    expect(order).toEqual(['ordinary', 'hostile']);
    expect((await h.client.getStory({ id: storyId }, writer)).story?.description).toBe('');
  });

  it('refuses hostile chapter content and authors_note together, one error per pointer', async () => {
    await expect(h.client.createChapter({ storyId, title: 'Two', content: HOSTILE_MARKDOWN, authorsNote: HOSTILE_MARKDOWN }, writer))
      .rejects.toMatchObject(refusedAt('/data/attributes/content', '/data/attributes/authors_note'));
    const { chapters } = await h.client.listChapters({ storyId }, writer);
    expect(chapters.map((chapter) => chapter.title)).toEqual(['One']);
  });

  it('refuses a hostile authors_note on a chapter update at its own pointer', async () => {
    const { chapters } = await h.client.listChapters({ storyId }, writer);
    await expect(h.client.updateChapter({ id: chapters[0]!.id, authorsNote: HOSTILE_MARKDOWN }, writer))
      .rejects.toMatchObject(refusedAt('/data/attributes/authors_note'));
  });

  it('refuses a hostile comment at /data/attributes/content', async () => {
    await expect(h.client.createComment({ storyId, content: HOSTILE_MARKDOWN }, commenter)).rejects.toMatchObject(refusedAt('/data/attributes/content'));
    expect((await h.client.listComments({ storyId }, commenter)).comments).toEqual([]);
  });
});

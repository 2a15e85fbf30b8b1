import { createGrpcClient } from '@inkwell/grpc';
import { StoriesService } from '@inkwell/proto/stories';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAPTER_PAGE_TEXT_BUDGET_BYTES } from '../src/domain/chapter.js';
import { author, caller, startStories, type StoriesHarness } from './harness.js';

/** A chapter text of about 1 MiB of plain words (its HTML is as large again). */
const MEGABYTE_OF_WORDS = 'word '.repeat(209_715).trim();

describe('ListChapters with include_content (docs/api/stories.md, "Chapter lists with content")', () => {
  let h: StoriesHarness;
  const writer = author('401');
  let storyId = '';
  let draftChapterId = '';

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_chapter_content');
    storyId = (await h.client.createStory({ title: 'A whole story' }, writer)).story!.id;
    for (const title of ['One', 'Two', 'Three']) await h.client.createChapter({ storyId, title, content: `${title} words.`, published: true }, writer);
    draftChapterId = (await h.client.createChapter({ storyId, title: 'Draft', content: 'Unfinished.', published: false }, writer)).chapter!.id;
    await h.client.updateStory({ id: storyId, published: true }, writer);
  });

  afterAll(async () => {
    await h?.close();
  });

  const viewEvents = async (): Promise<number> => (await h.pool.query<{ n: string }>("SELECT count(*) AS n FROM outbox WHERE type = 'inkwell.stories.v1.StoryViewed'")).rows[0]!.n as unknown as number;

  it('returns content and content_html only when asked, in chapter order, with drafts for the author', async () => {
    const reader = caller({ userId: '402' });
    const bare = await h.client.listChapters({ storyId, pageSize: 10 }, reader);
    expect(bare.chapters.map((chapter) => [chapter.title, chapter.content])).toEqual([
      ['One', undefined],
      ['Two', undefined],
      ['Three', undefined],
    ]);
    const full = await h.client.listChapters({ storyId, pageSize: 10, includeContent: true }, caller({ userId: '402' }));
    expect(full.chapters.map((chapter) => [chapter.title, chapter.content, chapter.contentHtml])).toEqual([
      ['One', 'One words.', '<p>One words.</p>'],
      ['Two', 'Two words.', '<p>Two words.</p>'],
      ['Three', 'Three words.', '<p>Three words.</p>'],
    ]);
    expect(full.nextAfter).toBe('');
    const own = await h.client.listChapters({ storyId, pageSize: 10, includeContent: true }, writer);
    expect(own.chapters.find((chapter) => chapter.id === draftChapterId)?.content).toBe('Unfinished.');
  });

  it('counts views like GetChapter: once per reader and chapter per day, never for the author or for drafts', async () => {
    const before = Number(await viewEvents());
    const newReader = caller({ userId: '403' });
    await h.client.listChapters({ storyId, pageSize: 10, includeContent: true }, newReader);
    expect(Number(await viewEvents())).toBe(before + 3);
    // The same reader again, through the list or one chapter: already counted today.
    await h.client.listChapters({ storyId, pageSize: 10, includeContent: true }, caller({ userId: '403' }));
    const first = (await h.client.listChapters({ storyId, pageSize: 1 }, newReader)).chapters[0]!;
    await h.client.getChapter({ id: first.id, includeContent: true }, caller({ userId: '403' }));
    // Metadata only, and the author's own reads (drafts included): nothing.
    await h.client.listChapters({ storyId, pageSize: 10 }, caller({ userId: '404' }));
    await h.client.listChapters({ storyId, pageSize: 10, includeContent: true }, writer);
    expect(Number(await viewEvents())).toBe(before + 3);
  });

  it(`ends a page at ${CHAPTER_PAGE_TEXT_BUDGET_BYTES} bytes of text and continues on the next`, async () => {
    const big = (await h.client.createStory({ title: 'A long story' }, writer)).story!.id;
    for (let i = 1; i <= 10; i++) await h.client.createChapter({ storyId: big, title: `Long ${i}`, content: MEGABYTE_OF_WORDS, published: true }, writer);
    const { rows } = await h.pool.query<{ bytes: string }>('SELECT octet_length(content) + octet_length(content_html) AS bytes FROM chapters WHERE story_id = $1 ORDER BY chapter_number', [big]);
    // The page keeps every chapter whose text, with the text before it, stays within the budget.
    let total = 0;
    let expected = 0;
    for (const row of rows) {
      total += Number(row.bytes);
      if (total > CHAPTER_PAGE_TEXT_BUDGET_BYTES) break;
      expected++;
    }
    expect(expected).toBeGreaterThan(1);
    expect(expected).toBeLessThan(10);

    // As the gateway's client: a full page is larger than gRPC's default 4 MiB.
    const gateway = createGrpcClient(StoriesService, h.address, { ...h.keys.clientOptions('gateway'), channelOptions: { 'grpc.max_receive_message_length': 32 * 1024 * 1024 } });
    const first = await gateway.listChapters({ storyId: big, pageSize: 100, includeContent: true }, writer);
    expect(first.chapters.map((chapter) => chapter.title)).toEqual(Array.from({ length: expected }, (_, i) => `Long ${i + 1}`));
    expect(first.chapters.every((chapter) => chapter.content === MEGABYTE_OF_WORDS)).toBe(true);
    expect(first.nextAfter).not.toBe('');
    const rest = await gateway.listChapters({ storyId: big, pageSize: 100, includeContent: true, after: first.nextAfter }, writer);
    expect(rest.chapters.map((chapter) => chapter.title)).toEqual(Array.from({ length: 10 - expected }, (_, i) => `Long ${expected + i + 1}`));
    expect(rest.nextAfter).toBe('');
    // Without content the budget does not apply.
    expect((await gateway.listChapters({ storyId: big, pageSize: 100 }, writer)).chapters).toHaveLength(10);
    gateway.close();
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@inkwell/testing';
import { author, caller, startStories, type StoriesHarness } from './harness.js';
import { startStatsFeed, type StatsFeed } from './stats-feed.js';

describe('views: counted once per reader and chapter per day, applied from StoryViewed events', () => {
  let h: StoriesHarness;
  let feed: StatsFeed;
  const writer = author('301');
  let storyId = '';
  let chapterId = '';
  let draftChapterId = '';

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_views');
    storyId = (await h.client.createStory({ title: 'Read me' }, writer)).story!.id;
    chapterId = (await h.client.createChapter({ storyId, title: 'One', content: 'Words to read.', published: true }, writer)).chapter!.id;
    draftChapterId = (await h.client.createChapter({ storyId, title: 'Two', content: 'Not yet.', published: false }, writer)).chapter!.id;
    await h.client.updateStory({ id: storyId, published: true }, writer);

    feed = await startStatsFeed(h, 'stories-views');
  });

  afterAll(async () => {
    await feed?.close();
    await h?.close();
  });

  const viewEvents = async () =>
    (await h.pool.query<{ payload: Buffer }>("SELECT payload FROM outbox WHERE type = 'inkwell.stories.v1.StoryViewed' ORDER BY id")).rows.map((row) => row.payload);

  async function counts(): Promise<{ story: number; chapter: number; hotness: number }> {
    const { rows } = await h.pool.query<{ story: number; chapter: number; hotness: number }>(
      'SELECT s.num_views AS story, c.num_views AS chapter, s.hotness FROM stories s JOIN chapters c ON c.story_id = s.id WHERE c.id = $1',
      [chapterId],
    );
    return rows[0]!;
  }

  it('writes one StoryViewed per reader for reads of the content, not for the author, metadata reads or drafts', async () => {
    const read = (as: ReturnType<typeof caller>, id = chapterId, includeContent = true) => h.client.getChapter({ id, includeContent }, as);
    const first = await read(caller({ userId: '302' }));
    expect(first.chapter!.content).toBe('Words to read.');
    expect(first.chapter!.contentHtml).toBe('<p>Words to read.</p>');
    await read(caller({ userId: '302' }));
    await read(caller({ userId: '303' }));
    await read(caller({ appId: 'views-app' }));
    await read(caller({ appId: 'views-app' }));
    await read(writer);
    const metadata = await read(caller({ userId: '304' }), chapterId, false);
    expect(metadata.chapter!.content).toBeUndefined();
    await read(writer, draftChapterId);
    expect(await viewEvents()).toHaveLength(3);
  });

  it('counts each event once on the story and the chapter, and heats the story', async () => {
    const before = await counts();
    const events = await viewEvents();
    await feed.kafka.send(feed.topic, events.map((value) => ({ key: storyId, value })));
    await eventually(async () => (await counts()).story === before.story + 3, { timeoutMs: 20_000, what: 'the consumer' });
    // Redelivery of the same events changes nothing.
    await feed.kafka.send(feed.topic, events.map((value) => ({ key: storyId, value })));
    await eventually(() => feed.kafka.consumed(feed.topic), { timeoutMs: 20_000, what: 'the consumer to handle the redelivery' });
    const after = await counts();
    expect(after.story).toBe(before.story + 3);
    expect(after.chapter).toBe(before.chapter + 3);
    expect(after.hotness).toBeGreaterThan(before.hotness);
    expect((await h.client.getStory({ id: storyId }, caller({ appId: 'views-app' }))).story!.numViews).toBe(after.story);
  });
});

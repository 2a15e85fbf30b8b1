import { describe, expect, it } from 'vitest';
import type { Tx } from '../repositories/story.rows.js';
import { memoryStories } from '../testing/memory.repositories.js';
import type { StoryStatsEvent } from './story-stats.service.js';

/** The consumer's transaction: the memory store has none, so any value stands in for it. */
const tx = {} as Tx;
const at = new Date('2026-03-01T00:00:00Z');

describe('StoryStatsService', () => {
  it('counts a view of the story and its chapter, heating published stories only', async () => {
    const { data, stats } = memoryStories();
    const published = data.putStory('900', { published: true });
    const chapter = data.putChapter(published);
    const draft = data.putStory('900');

    await stats.applyEvents(tx, [
      { kind: 'view', storyId: published, chapterId: chapter, at },
      { kind: 'view', storyId: draft, chapterId: data.putChapter(draft), at },
    ]);
    expect(data.read(published, null)).toMatchObject({ numViews: 1 });
    expect(data.read(published, null)!.hotness).toBeGreaterThan(0);
    expect(data.chapters.get(chapter)!.numViews).toBe(1);
    expect(data.read(draft, null)).toMatchObject({ numViews: 1, hotness: 0 });
  });

  it('follows votes in likes, dislikes and rating; only a new like heats', async () => {
    const { data, stats } = memoryStories();
    const id = data.putStory('900', { published: true });

    await stats.applyEvents(tx, [{ kind: 'vote', storyId: id, value: 'like', previous: undefined, at }]);
    const liked = data.read(id, null)!;
    expect(liked).toMatchObject({ numLikes: 1, numDislikes: 0 });
    expect(liked.rating).not.toBeNull();
    await stats.applyEvents(tx, [{ kind: 'vote', storyId: id, value: 'dislike', previous: 'like', at }]);
    expect(data.read(id, null)).toMatchObject({ numLikes: 0, numDislikes: 1, hotness: liked.hotness });
    await stats.applyEvents(tx, [{ kind: 'vote', storyId: id, value: undefined, previous: 'dislike', at }]);
    expect(data.read(id, null)).toMatchObject({ numLikes: 0, numDislikes: 0, rating: null });
  });

  it('counts comments posted and deleted, never below zero; a deleted comment cools nothing', async () => {
    const { data, stats } = memoryStories();
    const id = data.putStory('900', { published: true });

    await stats.applyEvents(tx, [{ kind: 'comment', storyId: id, delta: 1, at }]);
    const commented = data.read(id, null)!;
    expect(commented.numComments).toBe(1);
    expect(commented.hotness).toBeGreaterThan(0);
    await stats.applyEvents(tx, [
      { kind: 'comment', storyId: id, delta: -1, at },
      { kind: 'comment', storyId: id, delta: -1, at },
    ]);
    expect(data.read(id, null)).toMatchObject({ numComments: 0, hotness: commented.hotness });
  });

  it('gives a batch of events the values of the same events applied one at a time', async () => {
    const together = memoryStories();
    const apart = memoryStories();
    const events = (data: typeof together.data): StoryStatsEvent[] => {
      const first = data.putStory('900', { published: true });
      const second = data.putStory('901', { published: true });
      const [one, two] = [data.putChapter(first), data.putChapter(first)];
      const later = new Date(at.getTime() + 3_600_000);
      return [
        { kind: 'view', storyId: first, chapterId: one, at },
        { kind: 'vote', storyId: second, value: 'like', previous: undefined, at },
        { kind: 'view', storyId: first, chapterId: two, at: later },
        { kind: 'comment', storyId: first, delta: 1, at: later },
        { kind: 'view', storyId: first, chapterId: one, at: later },
        { kind: 'vote', storyId: second, value: 'dislike', previous: 'like', at: later },
      ];
    };
    const batch = events(together.data);
    await together.stats.applyEvents(tx, batch);
    for (const event of events(apart.data)) await apart.stats.applyEvents(tx, [event]);

    for (const storyId of new Set(batch.map((event) => event.storyId))) expect(together.data.read(storyId, null)).toEqual(apart.data.read(storyId, null));
    expect([...together.data.chapters.values()].map((chapter) => chapter.numViews)).toEqual([2, 1]);
    expect([...apart.data.chapters.values()].map((chapter) => chapter.numViews)).toEqual([2, 1]);
  });
});

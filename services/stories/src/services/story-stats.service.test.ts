import { describe, expect, it } from 'vitest';
import type { Tx } from '../repositories/story.rows.js';
import { memoryStories } from '../testing/memory.repositories.js';

/** The consumer's transaction: the memory store has none, so any value stands in for it. */
const tx = {} as Tx;
const at = new Date('2026-03-01T00:00:00Z');

describe('StoryStatsService', () => {
  it('counts a view of the story and its chapter, heating published stories only', async () => {
    const { data, stats } = memoryStories();
    const published = data.putStory('900', { published: true });
    const chapter = data.putChapter(published);
    const draft = data.putStory('900');

    await stats.applyView(tx, published, chapter, at);
    await stats.applyView(tx, draft, data.putChapter(draft), at);
    expect(data.read(published, null)).toMatchObject({ numViews: 1 });
    expect(data.read(published, null)!.hotness).toBeGreaterThan(0);
    expect(data.chapters.get(chapter)!.numViews).toBe(1);
    expect(data.read(draft, null)).toMatchObject({ numViews: 1, hotness: 0 });
  });

  it('follows votes in likes, dislikes and rating; only a new like heats', async () => {
    const { data, stats } = memoryStories();
    const id = data.putStory('900', { published: true });

    await stats.applyVote(tx, id, 'like', undefined, at);
    const liked = data.read(id, null)!;
    expect(liked).toMatchObject({ numLikes: 1, numDislikes: 0 });
    expect(liked.rating).not.toBeNull();
    await stats.applyVote(tx, id, 'dislike', 'like', at);
    expect(data.read(id, null)).toMatchObject({ numLikes: 0, numDislikes: 1, hotness: liked.hotness });
    await stats.applyVote(tx, id, undefined, 'dislike', at);
    expect(data.read(id, null)).toMatchObject({ numLikes: 0, numDislikes: 0, rating: null });
  });

  it('counts comments posted and deleted, never below zero; a deleted comment cools nothing', async () => {
    const { data, stats } = memoryStories();
    const id = data.putStory('900', { published: true });

    await stats.applyComment(tx, id, 1, at);
    const commented = data.read(id, null)!;
    expect(commented.numComments).toBe(1);
    expect(commented.hotness).toBeGreaterThan(0);
    await stats.applyComment(tx, id, -1, at);
    await stats.applyComment(tx, id, -1, at);
    expect(data.read(id, null)).toMatchObject({ numComments: 0, hotness: commented.hotness });
  });
});

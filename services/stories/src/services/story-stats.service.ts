import { afterVote, type RatingValue } from '../domain/engagement.js';
import { addHeat, HEAT_WEIGHTS } from '../domain/hotness.js';
import { wilsonRating } from '../domain/rating.js';
import type { StoryRepository } from '../repositories/story.repository.js';
import type { Tx } from '../repositories/story.rows.js';

/** Where the reader-driven counts are kept: StoryRepository, or a memory store in unit tests. */
export type StoryStatsStore = Pick<StoryRepository, 'applyView' | 'applyStats'>;

/**
 * Counts that readers drive, applied from the service's own events (docs/api/stories.md, "Counts, rating and hotness") inside the
 * consumer's transaction, which also records the event as processed: each event counts once.
 * Heat is added to published stories only; withdrawn votes and deleted comments cool nothing.
 */
export class StoryStatsService {
  constructor(private readonly stories: StoryStatsStore) {}

  /** A counted view (StoryViewed) at `at`: one more view for story and chapter, and heat. */
  async applyView(tx: Tx, storyId: string, chapterId: string, at: Date): Promise<void> {
    await this.stories.applyView(tx, storyId, chapterId, (current) => addHeat(current, HEAT_WEIGHTS.view, at));
  }

  /** A vote changed (StoryRated) at `at`: likes, dislikes and rating follow; a new like heats. */
  async applyVote(tx: Tx, storyId: string, value: RatingValue | undefined, previous: RatingValue | undefined, at: Date): Promise<void> {
    await this.stories.applyStats(tx, storyId, (current) => {
      const totals = afterVote(current, value, previous);
      const liked = value === 'like' && previous !== 'like' && current.published;
      return { ...current, ...totals, rating: wilsonRating(totals.likes, totals.dislikes), hotness: liked ? addHeat(current.hotness, HEAT_WEIGHTS.like, at) : current.hotness };
    });
  }

  /** A comment was posted (`delta` 1, with heat) or deleted (`delta` −1) at `at`. */
  async applyComment(tx: Tx, storyId: string, delta: 1 | -1, at: Date): Promise<void> {
    await this.stories.applyStats(tx, storyId, (current) => ({
      ...current,
      comments: Math.max(0, current.comments + delta),
      hotness: delta > 0 && current.published ? addHeat(current.hotness, HEAT_WEIGHTS.comment, at) : current.hotness,
    }));
  }
}

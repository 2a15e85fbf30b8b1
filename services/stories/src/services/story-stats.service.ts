import { afterVote, type RatingValue } from '../domain/engagement.js';
import { addHeat, HEAT_WEIGHTS } from '../domain/hotness.js';
import { wilsonRating } from '../domain/rating.js';
import { inLockOrder } from '../domain/story.js';
import type { StoryRepository, StoryStats } from '../repositories/story.repository.js';
import type { Tx } from '../repositories/story.rows.js';

/** Where the reader-driven counts are kept: StoryRepository, or a memory store in unit tests. */
export type StoryStatsStore = Pick<StoryRepository, 'applyStats' | 'addChapterViews'>;

/** A reader-driven event of a story at `at`, as the stories service's own events carry it. */
export type StoryStatsEvent =
  | { kind: 'view'; storyId: string; chapterId: string; at: Date }
  | { kind: 'vote'; storyId: string; value: RatingValue | undefined; previous: RatingValue | undefined; at: Date }
  | { kind: 'comment'; storyId: string; delta: 1 | -1; at: Date };

/**
 * Counts that readers drive, applied from the service's own events (docs/api/stories.md, "Counts,
 * rating and hotness") inside the consumer's transaction, which also records the events as
 * processed: each event counts once. Heat is added to published stories only; withdrawn votes and
 * deleted comments cool nothing.
 */
export class StoryStatsService {
  constructor(private readonly stories: StoryStatsStore) {}

  /**
   * Applies `events` in their order: a view counts for story and chapter and heats, a vote moves
   * likes, dislikes and rating (a new like heats), a comment posted (`delta` 1, with heat) or
   * deleted (−1, never below zero) moves the comment count. Each story's events are folded into
   * one write of its values (one StoryStatsChanged) and each chapter's views into one, stories in
   * lock order (`inLockOrder`): the same values as one event at a time, in fewer writes and lock waits.
   */
  async applyEvents(tx: Tx, events: readonly StoryStatsEvent[]): Promise<void> {
    const byStory = new Map<string, StoryStatsEvent[]>();
    for (const event of events) {
      const own = byStory.get(event.storyId);
      if (own === undefined) byStory.set(event.storyId, [event]);
      else own.push(event);
    }
    for (const storyId of inLockOrder(byStory.keys())) {
      const own = byStory.get(storyId)!;
      await this.stories.applyStats(tx, storyId, (current) => own.reduce(afterEvent, current));
      const chapterViews = new Map<string, number>();
      for (const event of own) if (event.kind === 'view') chapterViews.set(event.chapterId, (chapterViews.get(event.chapterId) ?? 0) + 1);
      for (const [chapterId, views] of chapterViews) await this.stories.addChapterViews(tx, storyId, chapterId, views);
    }
  }
}

/** A story's reader-driven values after one more event. */
function afterEvent(current: StoryStats, event: StoryStatsEvent): StoryStats {
  switch (event.kind) {
    case 'view':
      return { ...current, views: current.views + 1, hotness: current.published ? addHeat(current.hotness, HEAT_WEIGHTS.view, event.at) : current.hotness };
    case 'vote': {
      const totals = afterVote(current, event.value, event.previous);
      const liked = event.value === 'like' && event.previous !== 'like' && current.published;
      return { ...current, ...totals, rating: wilsonRating(totals.likes, totals.dislikes), hotness: liked ? addHeat(current.hotness, HEAT_WEIGHTS.like, event.at) : current.hotness };
    }
    case 'comment':
      return {
        ...current,
        comments: Math.max(0, current.comments + event.delta),
        hotness: event.delta > 0 && current.published ? addHeat(current.hotness, HEAT_WEIGHTS.comment, event.at) : current.hotness,
      };
  }
}

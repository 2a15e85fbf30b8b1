import { addHeat, HEAT_WEIGHTS } from '../domain/hotness.js';
import type { StoryRepository } from '../repositories/story.repository.js';
import type { Tx } from '../repositories/story.rows.js';

/**
 * Counts that readers drive, applied from the service's own events (contract.md §8) inside the
 * consumer's transaction, which also records the event as processed: each event counts once.
 */
export class StoryStatsService {
  constructor(private readonly stories: StoryRepository) {}

  /** A counted view (StoryViewed) at `at`: one more view for story and chapter, and heat. */
  async applyView(tx: Tx, storyId: string, chapterId: string, at: Date): Promise<void> {
    await this.stories.applyView(tx, storyId, chapterId, (current) => addHeat(current, HEAT_WEIGHTS.view, at));
  }
}

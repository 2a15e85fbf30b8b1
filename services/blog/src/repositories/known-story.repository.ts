import { type Queryable, withPgErrors } from '@inkwell/pg';
import type { StoryChange } from '../domain/known-story.js';

/**
 * The blog's copy of which stories are published (table known_stories), fed by the stories
 * service's events. Bound to a pool for reads, or to the transaction client of an event consumer
 * so that a change commits together with its dedupe row.
 */
export class KnownStoryRepository {
  constructor(private readonly db: Queryable) {}

  /** The ids among `storyIds` of stories that exist and are published. */
  async publishedAmong(storyIds: readonly string[]): Promise<Set<string>> {
    if (storyIds.length === 0) return new Set();
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ id: string }>(
        'SELECT id::text AS id FROM known_stories WHERE id = ANY($1::bigint[]) AND published AND NOT deleted',
        [storyIds],
      );
      return new Set(rows.map((row) => row.id));
    });
  }

  /**
   * Records a change unless a newer one (by occurred_at) is already recorded or the story was
   * deleted: deletion is final, and out-of-order redeliveries never roll the copy back.
   */
  async apply(change: StoryChange): Promise<void> {
    return withPgErrors(async () => {
      await this.db.query(
        `INSERT INTO known_stories (id, published, deleted, changed_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET published = EXCLUDED.published, deleted = EXCLUDED.deleted, changed_at = EXCLUDED.changed_at
         WHERE NOT known_stories.deleted AND known_stories.changed_at <= EXCLUDED.changed_at`,
        [change.storyId, change.published && !change.deleted, change.deleted, change.occurredAt],
      );
    });
  }
}

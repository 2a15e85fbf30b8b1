import type pg from 'pg';
import { assertIdentifier, withPgErrors, type Queryable } from '@inkwell/pg';
import { supersedes, type StoryState } from './known-story.js';

/** The table of a copy when none is named: each service has one of its own, in its own schema. */
export const KNOWN_STORIES_TABLE = 'known_stories';

/** What applying a story state came to. */
export interface AppliedStory {
  /** The state stored before, or undefined when the story was new to the copy. */
  previous?: StoryState;
  /** The state now stored: the incoming one, or the stored one when that was newer or deleted. */
  current: StoryState;
  /** True when the incoming state replaced a stored one (false for a new story and for an ignored state). */
  replaced: boolean;
}

interface KnownStoryRow {
  author_id: string;
  published: boolean;
  deleted: boolean;
  version: Date;
}

/**
 * A service's copy of the stories it needs to know about, fed by stories.story.v1 (and, where a
 * service asks, by the stories service's answers). The table, `known_stories` in the service's
 * own schema unless named otherwise, has the columns id, author_id, published, deleted and
 * version; each service creates it in its own migrations. Bound to a pool for reads, or to a
 * transaction client so that a change commits together with whatever depends on it (the
 * consumer's dedupe row, a service's derived counts).
 */
export class KnownStoryRepository {
  private readonly table: string;

  constructor(
    private readonly db: Queryable,
    table: string = KNOWN_STORIES_TABLE,
  ) {
    this.table = assertIdentifier(table, 'table name');
  }

  /** The ids among `storyIds` of stories that exist and are published. */
  async publishedAmong(storyIds: readonly string[]): Promise<Set<string>> {
    if (storyIds.length === 0) return new Set();
    return withPgErrors(async () => {
      const { rows } = await this.db.query<{ id: string }>(`SELECT id::text AS id FROM ${this.table} WHERE id = ANY($1::bigint[]) AND published AND NOT deleted`, [storyIds]);
      return new Set(rows.map((row) => row.id));
    });
  }

  /**
   * Stores `state` unless the stored one is newer or deleted (see `supersedes`): deletion is
   * final, and stale or replayed states never roll the copy back. A deleted story is stored as
   * unpublished. The story's row stays locked until the transaction ends, so that whatever the
   * caller derives from the change in the same transaction sees no concurrent change of it.
   */
  async apply(state: StoryState): Promise<AppliedStory> {
    return withPgErrors(async () => {
      const stored = { ...state, published: state.published && !state.deleted };
      const inserted = await this.db.query(
        `INSERT INTO ${this.table} (id, author_id, published, deleted, version) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
        [state.storyId, state.authorId, stored.published, state.deleted, state.version],
      );
      if (inserted.rowCount === 1) return { current: stored, replaced: false };

      const { rows } = await this.db.query<KnownStoryRow>(
        `SELECT author_id::text AS author_id, published, deleted, version FROM ${this.table} WHERE id = $1 FOR UPDATE`,
        [state.storyId],
      );
      const row = rows[0]!;
      const previous: StoryState = { storyId: state.storyId, authorId: row.author_id, published: row.published, deleted: row.deleted, version: row.version };
      if (!supersedes(state, previous)) return { previous, current: previous, replaced: false };
      await this.db.query(`UPDATE ${this.table} SET author_id = $2, published = $3, deleted = $4, version = $5 WHERE id = $1`, [
        state.storyId,
        state.authorId,
        stored.published,
        state.deleted,
        state.version,
      ]);
      return { previous, current: stored, replaced: true };
    });
  }
}

/** A store of story states bound to one transaction: the plain copy, or a service's copy that also keeps values derived from it. */
export interface KnownStoryStore {
  apply(state: StoryState): Promise<AppliedStory>;
}

/** Opens the store a consumer writes through, on the transaction client of one event. */
export type KnownStoryStoreFactory = (client: pg.PoolClient) => KnownStoryStore;

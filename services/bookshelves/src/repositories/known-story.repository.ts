import { withPgErrors } from '@inkwell/pg';
import { counts, supersedes, type StoryState } from '../domain/known-story.js';
import { adjustCounts, deleteItems, type Tx } from './bookshelf.rows.js';

interface KnownStoryRow {
  author_id: string;
  published: boolean;
  deleted: boolean;
  version: Date;
}

/** The stored state before and after applying one, as far as counts care. */
export interface AppliedStory {
  /** The state now stored (the incoming one, or the stored one when that was newer or deleted). */
  current: StoryState;
  /** Items removed because the story was deleted. */
  removedItems: number;
}

/**
 * Applies a story state in transaction `client`, keeping every value derived from it exact:
 * stores it unless the stored state is newer or deleted (see `supersedes`); when the story starts
 * or stops counting (published, not deleted), moves num_stories/num_unread of every shelf holding
 * it; when it is deleted, removes its items from every shelf with one BookshelfItemRemoved each.
 * The story's row stays locked until the transaction ends, which serialises item writes on it.
 */
export async function applyStoryState(client: Tx, state: StoryState): Promise<AppliedStory> {
  const inserted = await client.query(
    `INSERT INTO known_stories (id, author_id, published, deleted, version) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING`,
    [state.storyId, state.authorId, state.published && !state.deleted, state.deleted, state.version],
  );
  // A new row has no items yet: nothing else to move.
  if (inserted.rowCount === 1) return { current: state, removedItems: 0 };

  const { rows } = await client.query<KnownStoryRow>(
    'SELECT author_id::text AS author_id, published, deleted, version FROM known_stories WHERE id = $1 FOR UPDATE',
    [state.storyId],
  );
  const stored: StoryState = { storyId: state.storyId, authorId: rows[0]!.author_id, published: rows[0]!.published, deleted: rows[0]!.deleted, version: rows[0]!.version };
  if (!supersedes(state, stored)) return { current: stored, removedItems: 0 };
  await client.query('UPDATE known_stories SET author_id = $2, published = $3, deleted = $4, version = $5 WHERE id = $1', [
    state.storyId,
    state.authorId,
    state.published && !state.deleted,
    state.deleted,
    state.version,
  ]);
  const before = counts(stored);
  const after = counts(state);
  if (before !== after || state.deleted) {
    await adjustCounts(client, 'i.story_id = $1', [state.storyId], { sign: after ? 1 : -1, published: before !== after, items: state.deleted });
  }
  const removedItems = state.deleted ? await deleteItems(client, 'i.story_id = $1', [state.storyId]) : 0;
  return { current: state, removedItems };
}

/**
 * The bookshelves service's copy of the stories (table known_stories). Bound to the transaction
 * client of the stories consumer, so that a change commits together with its dedupe row.
 */
export class KnownStoryRepository {
  constructor(private readonly client: Tx) {}

  /** Applies `state` (see applyStoryState). */
  async apply(state: StoryState): Promise<AppliedStory> {
    return withPgErrors(async () => {
      return await applyStoryState(this.client, state);
    });
  }
}


import { withPgErrors } from '@inkwell/pg';
import { counts, KnownStoryRepository, type AppliedStory, type KnownStoryStore, type StoryState } from '@inkwell/known-stories';
import { adjustCounts, deleteItems, type Tx } from './bookshelf.rows.js';

/** What applying a story state came to on the shelves. */
export interface AppliedShelfStory extends AppliedStory {
  /** Items removed because the story was deleted. */
  removedItems: number;
}

/**
 * Applies a story state in transaction `client`, keeping every value derived from it exact:
 * records it in the copy (known_stories; a newer or deleted stored state wins); when the story
 * starts or stops counting (published, not deleted), moves num_stories/num_unread of every shelf
 * holding it; when it is deleted, removes its items from every shelf with one
 * BookshelfItemRemoved each. The story's row stays locked until the transaction ends, which
 * serialises item writes on it.
 */
export async function applyStoryState(client: Tx, state: StoryState): Promise<AppliedShelfStory> {
  const applied = await new KnownStoryRepository(client).apply(state);
  // A new row has no items yet, and an ignored state changes nothing: nothing else to move.
  if (!applied.replaced) return { ...applied, removedItems: 0 };
  const before = counts(applied.previous);
  const after = counts(applied.current);
  if (before !== after || state.deleted) {
    await adjustCounts(client, 'i.story_id = $1', [state.storyId], { sign: after ? 1 : -1, published: before !== after, items: state.deleted });
  }
  const removedItems = state.deleted ? await deleteItems(client, 'i.story_id = $1', [state.storyId]) : 0;
  return { ...applied, removedItems };
}

/**
 * The bookshelves service's copy of the stories with the shelf counts derived from it, bound to
 * the transaction client of the stories consumer, so that a change commits together with its
 * dedupe row.
 */
export class StoryCopyRepository implements KnownStoryStore {
  constructor(private readonly client: Tx) {}

  /** Applies `state` (see applyStoryState). */
  async apply(state: StoryState): Promise<AppliedShelfStory> {
    return withPgErrors(async () => {
      return await applyStoryState(this.client, state);
    });
  }
}

import type { ShelfItemSnapshot, ShelfSnapshot } from '../domain/bookshelf.js';
import type { BookshelfCopyRepository } from '../repositories/bookshelf-copy.repository.js';
import type { Tx } from '../repositories/story.rows.js';

/**
 * Keeps the service's copy of bookshelf membership from the bookshelves events, inside the
 * consumer's transaction (which also records the event as processed). Each method is idempotent
 * and ignores stale snapshots on its own, so a replay from the start of the topics leaves the
 * copy as it is (docs/api/stories.md, "Bookshelves in story lists").
 */
export class BookshelfCopyService {
  constructor(private readonly copy: BookshelfCopyRepository) {}

  /** Before a transaction's item events: takes their stories' locks in lock order (see BookshelfCopyRepository.lockStories). */
  async lockStories(tx: Tx, storyIds: readonly string[]): Promise<void> {
    await this.copy.lockStories(tx, storyIds);
  }

  /** BookshelfCreated / BookshelfUpdated that occurred at `at`: owner and privacy, newest snapshot wins. */
  async applyShelf(tx: Tx, shelf: ShelfSnapshot, at: Date): Promise<void> {
    await this.copy.upsertShelf(tx, shelf, at);
  }

  /** BookshelfDeleted: the shelf matches nothing from now on, even before its items' removals arrive. */
  async deleteShelf(tx: Tx, shelf: ShelfSnapshot, at: Date): Promise<void> {
    await this.copy.deleteShelf(tx, shelf, at);
  }

  /** BookshelfItemAdded / BookshelfItemUpdated that occurred at `at`: the item and its read flag. */
  async applyItem(tx: Tx, item: ShelfItemSnapshot, at: Date): Promise<void> {
    await this.copy.upsertItem(tx, item, at);
  }

  /** BookshelfItemRemoved: the item leaves its shelf for good (adding the story again is a new item). */
  async removeItem(tx: Tx, item: ShelfItemSnapshot, at: Date): Promise<void> {
    await this.copy.removeItem(tx, item, at);
  }
}

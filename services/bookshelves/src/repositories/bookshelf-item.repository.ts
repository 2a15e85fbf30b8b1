import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import type { BookshelfItem } from '../domain/bookshelf.js';
import { counts, type StoryState } from '@inkwell/known-stories';
import type { Position } from '../domain/page.js';
import { bookshelfItemAdded, bookshelfItemRemoved, bookshelfItemUpdated } from '../events/bookshelf.events.js';
import { ITEM_COLUMNS, selectShelf, toItem, type ItemRow, type Tx } from './bookshelf.rows.js';
import { applyStoryState } from './story-copy.repository.js';

/** One page of items, and where the next starts (absent on the last page). */
export interface ItemPage {
  items: BookshelfItem[];
  next?: Position;
}

/** What adding an item came to. */
export type AddOutcome =
  | { added: BookshelfItem }
  /** The shelf is gone (deleted meanwhile). */
  | { refused: 'no_shelf' }
  /** The story is deleted (the stored copy says so). */
  | { refused: 'no_story' }
  | { refused: 'duplicate' }
  | { refused: 'full' };

/** SQL access to the items of shelves, keeping the shelves' counts exact, with the items' outbox events. */
export class BookshelfItemRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * One page of shelf `shelfId`'s items in the order added (date_added, then id) after `after`:
   * items of published stories, and those of unpublished ones written by `unpublishedOf`.
   */
  async list(shelfId: string, unpublishedOf: string | undefined, pageSize: number, after: Position | undefined): Promise<ItemPage> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ItemRow>(
        `SELECT ${ITEM_COLUMNS} FROM bookshelf_items i
           JOIN bookshelves b ON b.id = i.bookshelf_id
           JOIN known_stories s ON s.id = i.story_id
         WHERE i.bookshelf_id = $1 AND (s.published OR s.author_id = $2::bigint)
           AND ($3::timestamptz IS NULL OR (i.date_added, i.id) > ($3::timestamptz, $4::bigint))
         ORDER BY i.date_added, i.id LIMIT $5`,
        [shelfId, unpublishedOf ?? null, after === undefined ? null : new Date(after.key), after?.id ?? null, pageSize + 1],
      );
      const page = rows.slice(0, pageSize);
      const last = page.at(-1);
      return { items: page.map(toItem), ...(rows.length > pageSize && last ? { next: { key: last.date_added.getTime(), id: last.id } } : {}) };
    });
  }

  /** Item `itemId` when it is on shelf `shelfId`, else undefined. */
  async find(shelfId: string, itemId: string): Promise<BookshelfItem | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ItemRow>(
        `SELECT ${ITEM_COLUMNS} FROM bookshelf_items i JOIN bookshelves b ON b.id = i.bookshelf_id WHERE i.id = $1 AND i.bookshelf_id = $2`,
        [itemId, shelfId],
      );
      return rows[0] && toItem(rows[0]);
    });
  }

  /**
   * Puts a story on shelf `shelfId` in one transaction: first records `story` (the stories
   * service's answer) in the copy like an event would, then locks the shelf, refuses a full shelf
   * (`maxItems` items) or a story already on it, inserts the item, moves the counts when the
   * story counts, and writes `BookshelfItemAdded`.
   */
  async add(shelfId: string, story: StoryState, read: boolean, maxItems: number): Promise<AddOutcome> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client): Promise<AddOutcome> => {
        const { current } = await applyStoryState(client, story);
        if (current.deleted) return { refused: 'no_story' };
        const shelf = await selectShelf(client, shelfId, true);
        if (!shelf) return { refused: 'no_shelf' };
        if (shelf.numItems >= maxItems) return { refused: 'full' };
        const { rows } = await client.query<{ id: string; read: boolean; date_added: Date }>(
          `INSERT INTO bookshelf_items (bookshelf_id, story_id, read) VALUES ($1, $2, $3)
           ON CONFLICT (bookshelf_id, story_id) DO NOTHING RETURNING id::text AS id, read, date_added`,
          [shelfId, story.storyId, read],
        );
        const row = rows[0];
        if (!row) return { refused: 'duplicate' };
        const counted = counts(current);
        await client.query(
          'UPDATE bookshelves SET num_items = num_items + 1, num_stories = num_stories + $2, num_unread = num_unread + $3 WHERE id = $1',
          [shelfId, counted ? 1 : 0, counted && !read ? 1 : 0],
        );
        const added: BookshelfItem = { id: row.id, bookshelfId: shelfId, ownerId: shelf.ownerId, storyId: story.storyId, read: row.read, dateAdded: row.date_added };
        await appendEvent(client, { key: added.id, payload: bookshelfItemAdded(added) });
        return { added };
      });
    });
  }

  /**
   * Sets item `itemId` of shelf `shelfId` read or unread, moving num_unread when its story counts,
   * and writes `BookshelfItemUpdated` when the flag changed. Undefined when there is no such item.
   */
  async setRead(shelfId: string, itemId: string, read: boolean): Promise<BookshelfItem | undefined> {
    return this.changeItem(shelfId, itemId, async (client, item, storyCounts) => {
      if (item.read === read) return item;
      await client.query('UPDATE bookshelf_items SET read = $2 WHERE id = $1', [itemId, read]);
      if (storyCounts) await client.query('UPDATE bookshelves SET num_unread = num_unread + $2 WHERE id = $1', [shelfId, read ? -1 : 1]);
      const updated = { ...item, read };
      await appendEvent(client, { key: itemId, payload: bookshelfItemUpdated(updated, item.read) });
      return updated;
    });
  }

  /** Takes item `itemId` off shelf `shelfId`, moving the counts, with `BookshelfItemRemoved`; undefined when there is no such item. */
  async remove(shelfId: string, itemId: string): Promise<BookshelfItem | undefined> {
    return this.changeItem(shelfId, itemId, async (client, item, storyCounts) => {
      await client.query('DELETE FROM bookshelf_items WHERE id = $1', [itemId]);
      await client.query(
        'UPDATE bookshelves SET num_items = num_items - 1, num_stories = num_stories - $2, num_unread = num_unread - $3 WHERE id = $1',
        [shelfId, storyCounts ? 1 : 0, storyCounts && !item.read ? 1 : 0],
      );
      await appendEvent(client, { key: itemId, payload: bookshelfItemRemoved(item) });
      return item;
    });
  }

  /**
   * Runs `change` on item `itemId` of shelf `shelfId` with the locks every item write takes, in
   * the order every writer takes them (story, then shelf, then item), so that counts stay exact
   * against concurrent publication changes and shelf deletions without deadlocks.
   */
  private async changeItem(
    shelfId: string,
    itemId: string,
    change: (client: Tx, item: BookshelfItem, storyCounts: boolean) => Promise<BookshelfItem>,
  ): Promise<BookshelfItem | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows: found } = await client.query<{ story_id: string }>('SELECT story_id::text AS story_id FROM bookshelf_items WHERE id = $1 AND bookshelf_id = $2', [itemId, shelfId]);
        if (!found[0]) return undefined;
        const { rows: story } = await client.query<{ published: boolean; deleted: boolean }>('SELECT published, deleted FROM known_stories WHERE id = $1 FOR SHARE', [found[0].story_id]);
        if (!(await selectShelf(client, shelfId, true))) return undefined;
        const { rows } = await client.query<ItemRow>(
          `SELECT ${ITEM_COLUMNS} FROM bookshelf_items i JOIN bookshelves b ON b.id = i.bookshelf_id WHERE i.id = $1 AND i.bookshelf_id = $2 FOR UPDATE OF i`,
          [itemId, shelfId],
        );
        if (!rows[0]) return undefined;
        return change(client, toItem(rows[0]), counts(story[0]));
      });
    });
  }
}

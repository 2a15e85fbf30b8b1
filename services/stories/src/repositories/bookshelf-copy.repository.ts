import type pg from 'pg';
import { withPgErrors } from '@inkwell/pg';
import type { ShelfAccessFacts } from '@inkwell/shelf-access';
import type { ShelfItemSnapshot, ShelfSnapshot } from '../domain/bookshelf.js';
import { inLockOrder, isEntityId } from '../domain/story.js';
import type { Tx } from './story.rows.js';

/**
 * SQL access to the service's copy of bookshelf membership (tables `bookshelves` and
 * `bookshelf_items`, migration 0005). Writes run inside the event consumer's transaction and are
 * idempotent on their own: applying an event twice, or an older snapshot after a newer one,
 * leaves the copy as it was (docs/api/stories.md, "Bookshelves in story lists").
 */
export class BookshelfCopyRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Owner and privacy of shelf `id`; undefined when the copy does not know it or it was deleted. */
  async findShelf(id: string): Promise<ShelfAccessFacts | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ owner_id: string; private: boolean }>(
        'SELECT owner_id::text, private FROM bookshelves WHERE id = $1 AND NOT deleted',
        [id],
      );
      const row = rows[0];
      return row && { ownerId: row.owner_id, private: row.private };
    });
  }

  /**
   * Writes `shelf` as of an event that occurred at `at`, unless the copy holds a newer version
   * (by date_modified, then event time) or a tombstone.
   */
  async upsertShelf(tx: Tx, shelf: ShelfSnapshot, at: Date): Promise<void> {
    await this.writeShelf(tx, shelf, at, false);
  }

  /** Leaves a tombstone for `shelf`: it matches nothing from now on, whatever arrives later. */
  async deleteShelf(tx: Tx, shelf: ShelfSnapshot, at: Date): Promise<void> {
    await this.writeShelf(tx, shelf, at, true);
  }

  /**
   * Locks the rows of `storyIds` as an item's insert does (FOR SHARE, see migration 0008), in
   * `inLockOrder` order, so that a transaction of many item events takes its story locks in the
   * same order as the stats consumer's.
   */
  async lockStories(tx: Tx, storyIds: readonly string[]): Promise<void> {
    if (storyIds.length === 0) return;
    return withPgErrors(async () => {
      await tx.query('SELECT 1 FROM stories WHERE id = ANY($1::bigint[]) ORDER BY id FOR SHARE', [inLockOrder(storyIds.filter(isEntityId))]);
    });
  }

  /**
   * Writes `item` (added, or its read flag changed) as of an event that occurred at `at`, unless
   * the item was removed or the copy holds a later read flag; then chooses the current item of
   * its shelf and story.
   */
  async upsertItem(tx: Tx, item: ShelfItemSnapshot, at: Date): Promise<void> {
    return withPgErrors(async () => {
      await lockPair(tx, item);
      await tx.query(
        `INSERT INTO bookshelf_items (id, bookshelf_id, story_id, read, date_added, event_time) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET read = EXCLUDED.read, event_time = EXCLUDED.event_time
         WHERE NOT bookshelf_items.removed AND EXCLUDED.event_time >= bookshelf_items.event_time`,
        [item.id, item.bookshelfId, item.storyId, item.read, item.dateAdded, at],
      );
      await chooseCurrent(tx, item);
    });
  }

  /** Leaves a tombstone for `item` (never current again), then chooses the current item of its shelf and story. */
  async removeItem(tx: Tx, item: ShelfItemSnapshot, at: Date): Promise<void> {
    return withPgErrors(async () => {
      await lockPair(tx, item);
      await tx.query(
        `INSERT INTO bookshelf_items (id, bookshelf_id, story_id, read, date_added, event_time, removed) VALUES ($1, $2, $3, $4, $5, $6, true)
         ON CONFLICT (id) DO UPDATE SET removed = true, current = false`,
        [item.id, item.bookshelfId, item.storyId, item.read, item.dateAdded, at],
      );
      await chooseCurrent(tx, item);
    });
  }

  private async writeShelf(tx: Tx, shelf: ShelfSnapshot, at: Date, deleted: boolean): Promise<void> {
    return withPgErrors(async () => {
      await tx.query(
        `INSERT INTO bookshelves AS b (id, owner_id, private, date_modified, event_time, deleted) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET owner_id = EXCLUDED.owner_id, private = EXCLUDED.private, date_modified = EXCLUDED.date_modified,
           event_time = EXCLUDED.event_time, deleted = EXCLUDED.deleted
         WHERE NOT b.deleted AND (EXCLUDED.deleted OR (EXCLUDED.date_modified, EXCLUDED.event_time) >= (b.date_modified, b.event_time))`,
        [shelf.id, shelf.ownerId, shelf.private, shelf.dateModified, at, deleted],
      );
    });
  }
}

/**
 * Serialises the writers of one (shelf, story) pair until the transaction ends: the events of two
 * item ids of the pair may be applied at once by two consumers (they are keyed by item id, so on
 * different partitions), and each must see the other's row when choosing the current item.
 */
async function lockPair(tx: Tx, item: ShelfItemSnapshot): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('stories.bookshelf_items:' || $1 || ':' || $2, 0))", [item.bookshelfId, item.storyId]);
}

/**
 * Marks the live item of the pair that was added last (then the highest id) as current, and no
 * other: the bookshelves service keeps one item per shelf and story, so every other live row of the
 * pair is one whose removal has not arrived yet. Clears before it sets, so the unique index of
 * current items holds at every step.
 */
async function chooseCurrent(tx: Tx, item: ShelfItemSnapshot): Promise<void> {
  const newest = `(SELECT id FROM bookshelf_items WHERE bookshelf_id = $1 AND story_id = $2 AND NOT removed ORDER BY date_added DESC, id DESC LIMIT 1)`;
  const pair = [item.bookshelfId, item.storyId];
  await tx.query(`UPDATE bookshelf_items SET current = false WHERE bookshelf_id = $1 AND story_id = $2 AND current AND id IS DISTINCT FROM ${newest}`, pair);
  await tx.query(`UPDATE bookshelf_items SET current = true WHERE id = ${newest} AND NOT current`, pair);
}

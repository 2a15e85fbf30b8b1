import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import type { Queryable } from '@inkwell/pg';
import type { Bookshelf, BookshelfItem, Privacy } from '../domain/bookshelf.js';
import { bookshelfItemRemoved } from '../events/bookshelf.events.js';

/** A transaction's client. */
export type Tx = pg.PoolClient;

/** A bookshelves row as selected by SHELF_COLUMNS. */
export interface ShelfRow {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  privacy: Privacy;
  color: string;
  position: number;
  num_items: number;
  num_stories: number;
  num_unread: number;
  date_created: Date;
  date_modified: Date;
}

/** A bookshelf_items row with its shelf's owner, as selected by ITEM_COLUMNS. */
export interface ItemRow {
  id: string;
  bookshelf_id: string;
  owner_id: string;
  story_id: string;
  read: boolean;
  date_added: Date;
}

/** The columns of a shelf `b`. */
export const SHELF_COLUMNS = `b.id::text AS id, b.owner_id::text AS owner_id, b.name, b.description, b.privacy, b.color, b.position,
  b.num_items, b.num_stories, b.num_unread, b.date_created, b.date_modified`;

/** The columns of an item `i` whose shelf is `b`. */
export const ITEM_COLUMNS = 'i.id::text AS id, i.bookshelf_id::text AS bookshelf_id, b.owner_id::text AS owner_id, i.story_id::text AS story_id, i.read, i.date_added';

/** A shelf row → domain shelf (num_unread included: the service decides who sees it). */
export function toShelf(row: ShelfRow): Bookshelf {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    description: row.description,
    privacy: row.privacy,
    color: row.color,
    order: row.position,
    numStories: row.num_stories,
    numUnread: row.num_unread,
    dateCreated: row.date_created,
    dateModified: row.date_modified,
  };
}

/** An item row → domain item. */
export function toItem(row: ItemRow): BookshelfItem {
  return { id: row.id, bookshelfId: row.bookshelf_id, ownerId: row.owner_id, storyId: row.story_id, read: row.read, dateAdded: row.date_added };
}

/** Shelf `id`, locked FOR UPDATE when `lock`; undefined if there is none. */
export async function selectShelf(db: Queryable, id: string, lock = false): Promise<Bookshelf & { numItems: number } | undefined> {
  const { rows } = await db.query<ShelfRow>(`SELECT ${SHELF_COLUMNS} FROM bookshelves b WHERE b.id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  const row = rows[0];
  return row && { ...toShelf(row), numItems: row.num_items };
}

/**
 * Moves the counts of shelves by the items that `where` selects (a condition on `i`, with
 * `params`): num_stories and num_unread by `sign` × their count when `published` (their story
 * counts), and num_items when `items`. Shelves are locked in id order first, so concurrent
 * changes touching several shelves cannot deadlock.
 */
export async function adjustCounts(client: Tx, where: string, params: unknown[], change: { sign: 1 | -1; published: boolean; items: boolean }): Promise<void> {
  const affected = `SELECT i.bookshelf_id, count(*)::int AS n, (count(*) FILTER (WHERE NOT i.read))::int AS u FROM bookshelf_items i WHERE ${where} GROUP BY i.bookshelf_id`;
  await client.query(`SELECT 1 FROM bookshelves WHERE id IN (SELECT bookshelf_id FROM (${affected}) a) ORDER BY id FOR UPDATE`, params);
  const sign = `$${params.length + 1}::int`;
  const sets = [
    ...(change.published ? [`num_stories = b.num_stories + ${sign} * c.n`, `num_unread = b.num_unread + ${sign} * c.u`] : []),
    ...(change.items ? [`num_items = b.num_items + ${sign} * c.n`] : []),
  ];
  if (sets.length === 0) return;
  await client.query(`UPDATE bookshelves b SET ${sets.join(', ')} FROM (${affected}) c WHERE b.id = c.bookshelf_id`, [...params, change.sign]);
}

/**
 * Deletes the items that `where` selects (a condition on `i`, with `params`) and writes one
 * `BookshelfItemRemoved` per item, oldest first; returns how many. The caller has adjusted the
 * counts (or is deleting the shelves).
 */
export async function deleteItems(client: Tx, where: string, params: unknown[]): Promise<number> {
  const { rows } = await client.query<ItemRow>(
    `DELETE FROM bookshelf_items i USING bookshelves b WHERE b.id = i.bookshelf_id AND ${where} RETURNING ${ITEM_COLUMNS}`,
    params,
  );
  rows.sort((a, b) => a.date_added.getTime() - b.date_added.getTime() || compareIds(a.id, b.id));
  for (const row of rows) await appendEvent(client, { key: row.id, payload: bookshelfItemRemoved(toItem(row)) });
  return rows.length;
}

function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

import type pg from 'pg';
import { appendEvent } from '@inkwell/events';
import { ITEM_OVERHEAD_BYTES, LIST_PAGE_MAX_BYTES } from '@inkwell/limits';
import { budgetedPage, budgetedPageSql, withPgErrors, withTransaction, type BudgetedRow } from '@inkwell/pg';
import type { Bookshelf, Privacy } from '../domain/bookshelf.js';
import type { Position } from '../domain/page.js';
import { bookshelfCreated, bookshelfDeleted, bookshelfUpdated } from '../events/bookshelf.events.js';
import { deleteItems, selectShelf, SHELF_COLUMNS, toShelf, type ShelfRow } from './bookshelf.rows.js';

/** A validated new shelf; `order` undefined places it after the owner's others. */
export interface NewBookshelf {
  ownerId: string;
  name: string;
  description: string;
  privacy: Privacy;
  color: string;
  order?: number;
}

/** The columns a PATCH changes. */
export interface BookshelfUpdate {
  name?: string;
  description?: string;
  privacy?: Privacy;
  color?: string;
  order?: number;
}

/** One page of shelves, and where the next starts (absent on the last page). */
export interface ShelfPage {
  shelves: Bookshelf[];
  next?: Position;
}

const NOW = "date_trunc('milliseconds', now())";

/** SQL access to the bookshelves table, with the shelves' outbox events. */
export class BookshelfRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Shelf `id`, or undefined. */
  async findById(id: string): Promise<Bookshelf | undefined> {
    return withPgErrors(async () => {
      const shelf = await selectShelf(this.pool, id);
      if (!shelf) return undefined;
      const { numItems: _numItems, ...rest } = shelf;
      return rest;
    });
  }

  /**
   * The shelves with these ids that exist, in the order of `ids` (duplicates once), from the
   * first as far as `budgetBytes` allows (docs/api/foundation.md, "Byte budgets"); `covered` is
   * how many of the unique ids the answer accounts for.
   */
  async findByIds(ids: readonly string[], budgetBytes: number): Promise<{ shelves: Bookshelf[]; covered: number }> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return { shelves: [], covered: 0 };
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ShelfRow & BudgetedRow & { ord: string }>(
        budgetedPageSql(
          `SELECT ${SHELF_COLUMNS}, w.ord FROM unnest($1::bigint[]) WITH ORDINALITY AS w(id, ord) JOIN bookshelves b ON b.id = w.id`,
          { bytes: `octet_length(description) + ${ITEM_OVERHEAD_BYTES}`, order: 'ord', budgetParam: '$2' },
        ),
        [unique, budgetBytes],
      );
      const page = budgetedPage(rows, rows.length);
      return { shelves: page.rows.map(toShelf), covered: page.more ? Number(rows.at(-1)!.ord) : unique.length };
    });
  }

  /**
   * One page of `ownerId`'s shelves in their order (`order`, then id), private ones only when
   * `includePrivate`, starting after `after`, cut short by the list page's byte budget.
   */
  async listByOwner(ownerId: string, includePrivate: boolean, pageSize: number, after: Position | undefined): Promise<ShelfPage> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<ShelfRow & BudgetedRow>(
        budgetedPageSql(
          `SELECT ${SHELF_COLUMNS} FROM bookshelves b
           WHERE b.owner_id = $1 AND ($2 OR b.privacy = 'public') AND ($3::int IS NULL OR (b.position, b.id) > ($3::int, $4::bigint))
           ORDER BY b.position, b.id LIMIT $5`,
          { bytes: `octet_length(description) + ${ITEM_OVERHEAD_BYTES}`, order: 'position, id', budgetParam: '$6' },
        ),
        [ownerId, includePrivate, after?.key ?? null, after?.id ?? null, pageSize + 1, LIST_PAGE_MAX_BYTES],
      );
      const page = budgetedPage(rows, pageSize);
      const last = page.rows.at(-1);
      return { shelves: page.rows.map(toShelf), ...(page.more && last ? { next: { key: last.position, id: last.id } } : {}) };
    });
  }

  /**
   * Creates a shelf with its `BookshelfCreated` event, unless its owner already has `maxShelves`
   * (then undefined). The owner's shelf creations are serialised (a transaction-level advisory
   * lock on the owner) so that concurrent ones cannot pass the cap together.
   */
  async create(shelf: NewBookshelf, maxShelves: number): Promise<Bookshelf | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended('bookshelves.owner:' || $1::text, 0))", [shelf.ownerId]);
        const { rows: owned } = await client.query<{ n: number; next: string }>(
          'SELECT count(*)::int AS n, LEAST(coalesce(max(position)::bigint + 1, 0), 2147483647)::text AS next FROM bookshelves WHERE owner_id = $1',
          [shelf.ownerId],
        );
        if (owned[0]!.n >= maxShelves) return undefined;
        const { rows } = await client.query<ShelfRow>(
          `INSERT INTO bookshelves AS b (owner_id, name, description, privacy, color, position) VALUES ($1, $2, $3, $4, $5, $6)
           RETURNING ${SHELF_COLUMNS}`,
          [shelf.ownerId, shelf.name, shelf.description, shelf.privacy, shelf.color, shelf.order ?? Number(owned[0]!.next)],
        );
        const created = toShelf(rows[0]!);
        await appendEvent(client, { key: created.id, payload: bookshelfCreated(created) });
        return created;
      });
    });
  }

  /** Applies `update` to shelf `id`, sets date_modified, and writes `BookshelfUpdated`; undefined when there is no such shelf. */
  async update(id: string, update: BookshelfUpdate): Promise<Bookshelf | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<ShelfRow>(
          `UPDATE bookshelves b SET name = coalesce($2, b.name), description = coalesce($3, b.description), privacy = coalesce($4, b.privacy),
             color = coalesce($5, b.color), position = coalesce($6, b.position), date_modified = ${NOW}
           WHERE b.id = $1 RETURNING ${SHELF_COLUMNS}`,
          [id, update.name ?? null, update.description ?? null, update.privacy ?? null, update.color ?? null, update.order ?? null],
        );
        if (!rows[0]) return undefined;
        const updated = toShelf(rows[0]);
        await appendEvent(client, { key: id, payload: bookshelfUpdated(updated) });
        return updated;
      });
    });
  }

  /**
   * Deletes shelf `id` with its items: one `BookshelfItemRemoved` per item (oldest first), then
   * `BookshelfDeleted` with the shelf's last state, all in one transaction. False when there is none.
   */
  async delete(id: string): Promise<boolean> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const shelf = await selectShelf(client, id, true);
        if (!shelf) return false;
        await deleteItems(client, 'i.bookshelf_id = $1', [id]);
        await client.query('DELETE FROM bookshelves WHERE id = $1', [id]);
        const { numItems: _numItems, ...last } = shelf;
        await appendEvent(client, { key: id, payload: bookshelfDeleted(last) });
        return true;
      });
    });
  }
}

import type pg from 'pg';
import { constraintName, translatePgError, withPgErrors, withTransaction } from '@inkwell/pg';
import { targetKeyOf, type Block, type Mute, type MuteTarget, type RelationPosition, type Relations } from '../domain/relations.js';
import { blocksEitherWay, endFollowsBetween, lockUsers } from './follow.repository.js';

interface BlockRow {
  blocker_id: string;
  blocked_id: string;
  date_created: Date;
  date_micros: string;
}

interface MuteRow {
  id: string;
  muter_id: string;
  target: string;
  author_id: string | null;
  date_created: Date;
  date_micros: string;
}

const MICROS = `(extract(epoch FROM date_created) * 1000000)::bigint::text AS date_micros`;
const BLOCK_COLUMNS = `blocker_id::text AS blocker_id, blocked_id::text AS blocked_id, date_created, ${MICROS}`;
const MUTE_COLUMNS = `id::text AS id, muter_id::text AS muter_id, target, author_id::text AS author_id, date_created, ${MICROS}`;

function toBlock(row: BlockRow): Block {
  return { blockerId: row.blocker_id, blockedId: row.blocked_id, dateCreated: row.date_created };
}

function toMute(row: MuteRow): Mute {
  const target: MuteTarget = row.author_id === null ? { tagId: row.target } : { authorId: row.author_id };
  return { id: row.id, muterId: row.muter_id, target, dateCreated: row.date_created };
}

/** What a block or mute write found: the new row, a missing user, a duplicate, or a full list. */
export type RelationOutcome<T> = { created: T } | { missing: 'user' | 'target' } | { duplicate: true } | { full: true };

/** One page of a relation list and the position of its last row (undefined on the last page). */
export interface RelationPage<T> {
  items: T[];
  next?: RelationPosition;
}

/**
 * SQL access to `blocks` and `mutes`. A block locks both users' rows (as a follow does, in id
 * order) before it ends their follows, so that a follow made at the same moment is either ended
 * here or refused by FollowRepository; the per-user caps are checked under the blocker's lock.
 */
export class RelationRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** `blockerId` blocks `blockedId` and every follow between them ends, in one transaction. */
  async block(blockerId: string, blockedId: string, max: number): Promise<RelationOutcome<Block>> {
    try {
      return await withTransaction(this.pool, async (client) => {
        const missing = await lockUsers(client, blockerId, blockedId);
        if (missing) return { missing: missing === 'follower' ? 'user' : 'target' };
        if ((await countOf(client, 'blocks', 'blocker_id', blockerId)) >= max) return { full: true };
        const { rows } = await client.query<BlockRow>(
          `INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING ${BLOCK_COLUMNS}`,
          [blockerId, blockedId],
        );
        if (!rows[0]) return { duplicate: true };
        await endFollowsBetween(client, blockerId, blockedId);
        return { created: toBlock(rows[0]) };
      });
    } catch (error) {
      throw translatePgError(error);
    }
  }

  /** Removes a block; undefined when there was none. */
  async unblock(blockerId: string, blockedId: string): Promise<Block | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<BlockRow>(`DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2 RETURNING ${BLOCK_COLUMNS}`, [blockerId, blockedId]);
      return rows[0] && toBlock(rows[0]);
    });
  }

  /** Up to `size` of a blocker's blocks after `after`, newest first. */
  async listBlocks(blockerId: string, size: number, after: RelationPosition | undefined): Promise<RelationPage<Block>> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<BlockRow>(
        `SELECT ${BLOCK_COLUMNS} FROM blocks
          WHERE blocker_id = $1
            AND ($2::bigint IS NULL OR (date_created, blocked_id) < (timestamptz 'epoch' + $2::bigint * interval '1 microsecond', $3::bigint))
          ORDER BY date_created DESC, blocked_id DESC LIMIT $4`,
        [blockerId, after?.dateMicros ?? null, after?.key ?? null, size + 1],
      );
      return pageOf(rows, size, toBlock, (row) => row.blocked_id);
    });
  }

  /** `muterId` mutes `target`. An author must exist; a tag id is taken as it is. */
  async mute(muterId: string, target: MuteTarget, max: number): Promise<RelationOutcome<Mute>> {
    try {
      return await withTransaction(this.pool, async (client) => {
        const authorId = 'authorId' in target ? target.authorId : undefined;
        const { rows: muter } = await client.query(`SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, [muterId]);
        if (muter.length === 0) return { missing: 'user' };
        if (authorId !== undefined && (await client.query(`SELECT 1 FROM users WHERE id = $1`, [authorId])).rows.length === 0) return { missing: 'target' };
        if ((await countOf(client, 'mutes', 'muter_id', muterId)) >= max) return { full: true };
        const { rows } = await client.query<MuteRow>(
          `INSERT INTO mutes (muter_id, target, author_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING ${MUTE_COLUMNS}`,
          [muterId, targetKeyOf(target), authorId ?? null],
        );
        return rows[0] ? { created: toMute(rows[0]) } : { duplicate: true };
      });
    } catch (error) {
      if (constraintName(error) === 'mutes_not_self') return { missing: 'target' };
      throw translatePgError(error);
    }
  }

  /** Removes one of a muter's mutes by its id; undefined when there was none. */
  async unmute(muterId: string, muteId: string): Promise<Mute | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<MuteRow>(`DELETE FROM mutes WHERE muter_id = $1 AND id = $2 RETURNING ${MUTE_COLUMNS}`, [muterId, muteId]);
      return rows[0] && toMute(rows[0]);
    });
  }

  /** Up to `size` of a muter's mutes after `after`, newest first. */
  async listMutes(muterId: string, size: number, after: RelationPosition | undefined): Promise<RelationPage<Mute>> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<MuteRow>(
        `SELECT ${MUTE_COLUMNS} FROM mutes
          WHERE muter_id = $1
            AND ($2::bigint IS NULL OR (date_created, id) < (timestamptz 'epoch' + $2::bigint * interval '1 microsecond', $3::bigint))
          ORDER BY date_created DESC, id DESC LIMIT $4`,
        [muterId, after?.dateMicros ?? null, after?.key ?? null, size + 1],
      );
      return pageOf(rows, size, toMute, (row) => row.id);
    });
  }

  /** True when either user blocks the other. */
  async blockedEitherWay(userId: string, otherUserId: string): Promise<boolean> {
    return withPgErrors(() => blocksEitherWay(this.pool, userId, otherUserId));
  }

  /** Everything one user blocks and mutes (each set bounded by its cap). */
  async relationsOf(userId: string): Promise<Relations> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ blocked: string[]; authors: string[]; tags: string[] }>(
        `SELECT ARRAY(SELECT blocked_id::text FROM blocks WHERE blocker_id = $1) AS blocked,
                ARRAY(SELECT author_id::text FROM mutes WHERE muter_id = $1 AND author_id IS NOT NULL) AS authors,
                ARRAY(SELECT target FROM mutes WHERE muter_id = $1 AND author_id IS NULL) AS tags`,
        [userId],
      );
      const row = rows[0]!;
      return { blockedUserIds: row.blocked, mutedAuthorIds: row.authors, mutedTagIds: row.tags };
    });
  }
}

async function countOf(client: pg.PoolClient, table: 'blocks' | 'mutes', column: 'blocker_id' | 'muter_id', userId: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [userId]);
  return rows[0]!.n;
}

function pageOf<R extends { date_micros: string }, T>(rows: R[], size: number, map: (row: R) => T, keyOf: (row: R) => string): RelationPage<T> {
  const page = rows.slice(0, size);
  const last = page[page.length - 1];
  return { items: page.map(map), ...(rows.length > size && last ? { next: { dateMicros: last.date_micros, key: keyOf(last) } } : {}) };
}

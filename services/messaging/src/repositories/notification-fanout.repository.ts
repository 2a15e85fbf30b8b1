import type pg from 'pg';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import { KIND_CODES, REASON_BITS } from '../domain/notification.js';

/** The NOTIFY channel a queued fan-out raises (at commit) and the fan-out workers listen on. */
export const FANOUT_CHANNEL = 'messaging_notification_fanouts';

/** What one chunk of a fan-out did. */
export interface FanoutChunk {
  /** The fan-out's subject, for logs. */
  kind: number;
  subjectId: string;
  /** Users in this chunk, and notifications written (fewer when some existed already, or the author was among them). */
  recipients: number;
  inserted: number;
  /** True when this was the fan-out's last chunk (it is deleted). */
  finished: boolean;
}

interface FanoutRow {
  id: string;
  kind: number;
  subject_id: string;
  actor_id: string;
  story_id: string | null;
  chapter_id: string | null;
  blog_post_id: string | null;
  occurred_at: Date;
  after_user_id: string;
  slices: number;
  slice: number;
}

interface ChunkRow {
  last_user_id: string | null;
  recipients: string;
  inserted: string;
}

/**
 * The recipients of a fan-out slice ($11 of $10: user id modulo $10) after user id $2, at most $3,
 * in user-id order, with their reasons:
 * the author's followers ($1), and for a chapter also the readers with its story ($6) on a shelf.
 * Each side is cut at $3 rows before the union, so the first $3 users of the union are complete
 * from both sides (each side alone reaches at least as far). The author is never notified, but
 * counts in the chunk: a chunk shorter than $3 is the last.
 */
const FOLLOWERS = `
  SELECT follower_id AS user_id, ${REASON_BITS.followed_author} AS reason FROM follows
   WHERE followed_id = $1 AND NOT removed AND follower_id > $2 AND follower_id % $10 = $11 ORDER BY follower_id LIMIT $3`;
const SHELF_READERS = `
  SELECT owner_id AS user_id, ${REASON_BITS.bookshelf} AS reason FROM shelf_items
   WHERE story_id = $6 AND NOT removed AND owner_id > $2 AND owner_id % $10 = $11 ORDER BY owner_id LIMIT $3`;

function chunkSql(withShelves: boolean): string {
  const sources = withShelves ? `(${FOLLOWERS}) UNION ALL (${SHELF_READERS})` : `(${FOLLOWERS})`;
  // Only chapter notifications carry reasons (docs/api/updates.md, "Notification kinds and visibility").
  const reasons = withShelves ? 'c.reasons' : '0';
  return `
    WITH chunk AS (
      SELECT user_id, bit_or(reason)::smallint AS reasons FROM (${sources}) AS r
       GROUP BY user_id ORDER BY user_id LIMIT $3
    ), inserted AS (
      INSERT INTO notifications (user_id, kind, subject_id, actor_id, story_id, chapter_id, blog_post_id, reasons, created_at)
      SELECT c.user_id, $4, $5, $1, $6, $7, $8, ${reasons}, $9 FROM chunk c WHERE c.user_id <> $1 ORDER BY c.user_id
      ON CONFLICT (kind, subject_id, user_id) DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT max(user_id) FROM chunk)::text AS last_user_id, (SELECT count(*) FROM chunk) AS recipients, (SELECT count(*) FROM inserted) AS inserted`;
}

const WITH_SHELVES = chunkSql(true);
const FOLLOWERS_ONLY = chunkSql(false);

/**
 * The queued fan-outs (docs/api/updates.md, "Fan-out model"): each chunk is one transaction that
 * takes the fan-out slice that waited longest (skipping those another worker is working on), writes
 * the notifications of its next `chunkSize` recipients with one INSERT … SELECT from the local
 * copies, and moves its position on, or deletes it after its last chunk. A chunk that fails rolls
 * back whole and is done again; a notification that exists already is left as it is. Chunks
 * commit without waiting for the WAL flush (a lost commit loses its position too).
 */
export class NotificationFanoutRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Runs one chunk of the fan-out whose turn it is; undefined when none is queued (or all are busy). */
  async runChunk(chunkSize: number): Promise<FanoutChunk | undefined> {
    return withPgErrors(() =>
      withTransaction(this.pool, async (client) => {
        // A chunk commits its notifications and its position together: if a crash loses the
        // commit, both are lost and the chunk is done again, so it need not wait for the WAL flush.
        await client.query('SET LOCAL synchronous_commit = off');
        const { rows } = await client.query<FanoutRow>(
          `SELECT id, kind, subject_id::text AS subject_id, actor_id, story_id, chapter_id, blog_post_id, occurred_at, after_user_id, slices, slice
             FROM notification_fanouts ORDER BY turn_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
        );
        const fanout = rows[0];
        if (fanout === undefined) return undefined;
        const sql = fanout.kind === KIND_CODES.chapter_published ? WITH_SHELVES : FOLLOWERS_ONLY;
        const { rows: done } = await client.query<ChunkRow>(sql, [
          fanout.actor_id,
          fanout.after_user_id,
          chunkSize,
          fanout.kind,
          fanout.subject_id,
          fanout.story_id,
          fanout.chapter_id,
          fanout.blog_post_id,
          fanout.occurred_at,
          fanout.slices,
          fanout.slice,
        ]);
        const chunk = done[0]!;
        const recipients = Number(chunk.recipients);
        const finished = recipients < chunkSize;
        if (finished) await client.query('DELETE FROM notification_fanouts WHERE id = $1', [fanout.id]);
        else await client.query('UPDATE notification_fanouts SET after_user_id = $2, turn_at = clock_timestamp() WHERE id = $1', [fanout.id, chunk.last_user_id]);
        return { kind: fanout.kind, subjectId: fanout.subject_id, recipients, inserted: Number(chunk.inserted), finished };
      }),
    );
  }

  /** Whether any fan-out is queued: one cheap read for idle workers, before they open a transaction. */
  async anyQueued(): Promise<boolean> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ queued: boolean }>('SELECT EXISTS (SELECT 1 FROM notification_fanouts) AS queued');
      return rows[0]!.queued;
    });
  }

  /** How many fan-out slices are queued (a metric, and for tests). */
  async queued(): Promise<number> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ count: string }>('SELECT count(*) AS count FROM notification_fanouts');
      return Number(rows[0]!.count);
    });
  }
}

import type pg from 'pg';
import { withPgErrors } from '@inkwell/pg';
import { KIND_CODES, kindOfCode, reasonsOfBits, RETENTION_DAYS, type InboxPage, type InboxQuery, type Notification, type ReadMark } from '../domain/notification.js';

interface NotificationRow {
  id: string;
  user_id: string;
  kind: number;
  actor_id: string;
  story_id: string | null;
  chapter_id: string | null;
  comment_id: string | null;
  blog_post_id: string | null;
  private_message_id: string | null;
  reasons: number;
  created_at: Date;
  read: boolean;
}

const COLUMNS = `n.id::text AS id, n.user_id::text AS user_id, n.kind, n.actor_id::text AS actor_id, n.story_id::text AS story_id,
  n.chapter_id::text AS chapter_id, n.comment_id::text AS comment_id, n.blog_post_id::text AS blog_post_id,
  n.private_message_id::text AS private_message_id, n.reasons, n.created_at, n.read_at IS NOT NULL AS read`;

/**
 * Which notifications are shown (docs/api/updates.md, "Notification kinds and visibility"): those
 * of the last 90 days whose story and chapter, where they have one, are published and not
 * deleted in the local copies (one missing from a copy counts as not shown). Lists, counts,
 * lookups and marking all apply it. Scalar subqueries rather than EXISTS: Postgres turns
 * `x IS NULL OR EXISTS (…)` into a hashed subplan that reads the whole story copy on every page
 * (6 ms with 20,000 stories, growing with the site); a scalar subquery is one primary-key probe
 * per row shown (0.3 ms for a page).
 */
const VISIBLE = `n.created_at > now() - make_interval(days => ${RETENTION_DAYS})
  AND (n.story_id IS NULL OR coalesce((SELECT s.published AND NOT s.deleted FROM known_stories s WHERE s.id = n.story_id), false))
  AND (n.chapter_id IS NULL OR coalesce((SELECT c.published AND NOT c.deleted FROM known_chapters c WHERE c.id = n.chapter_id), false))`;

const UNREAD_COUNT = `SELECT count(*)::int AS unread FROM notifications n WHERE n.user_id = $1 AND n.read_at IS NULL AND ${VISIBLE}`;

/** How many old notifications one statement of the retention purge deletes. */
const PURGE_BATCH = 5_000;

function toNotification(row: NotificationRow): Notification {
  const kind = kindOfCode(row.kind);
  if (kind === undefined) throw new Error(`notification ${row.id} has unknown kind ${row.kind}`);
  const notification: Notification = {
    id: row.id,
    userId: row.user_id,
    kind,
    read: row.read,
    dateCreated: row.created_at,
    actorId: row.actor_id,
    reasons: reasonsOfBits(row.reasons),
  };
  if (row.story_id !== null) notification.storyId = row.story_id;
  if (row.chapter_id !== null) notification.chapterId = row.chapter_id;
  if (row.comment_id !== null) notification.commentId = row.comment_id;
  if (row.blog_post_id !== null) notification.blogPostId = row.blog_post_id;
  if (row.private_message_id !== null) notification.privateMessageId = row.private_message_id;
  return notification;
}

/** SQL access to a user's notifications and feed token, and the retention purge. */
export class NotificationRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** One page of a user's visible notifications, newest first (by id), and whether more follow. */
  async listPage(query: InboxQuery): Promise<InboxPage> {
    return withPgErrors(async () => {
      const kinds = query.kinds !== undefined && query.kinds.length > 0 ? query.kinds.map((kind) => KIND_CODES[kind]) : null;
      const { rows } = await this.pool.query<NotificationRow>(
        `SELECT ${COLUMNS} FROM notifications n
          WHERE n.user_id = $1 AND ($2::bigint IS NULL OR n.id < $2) AND ($3::boolean IS NULL OR (n.read_at IS NOT NULL) = $3)
            AND ($4::smallint[] IS NULL OR n.kind = ANY ($4)) AND ${VISIBLE}
          ORDER BY n.id DESC LIMIT $5`,
        [query.userId, query.beforeId ?? null, query.read ?? null, kinds, query.pageSize + 1],
      );
      return { notifications: rows.slice(0, query.pageSize).map(toNotification), more: rows.length > query.pageSize };
    });
  }

  /** The newest `limit` visible notifications of a user (the private feed). */
  async newest(userId: string, limit: number): Promise<Notification[]> {
    return (await this.listPage({ userId, pageSize: limit })).notifications;
  }

  /** How many visible notifications of the user are unread. */
  async unreadCount(userId: string): Promise<number> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ unread: number }>(UNREAD_COUNT, [userId]);
      return rows[0]!.unread;
    });
  }

  /** Notification `id` if it is the user's and visible, else undefined. */
  async findVisible(id: string, userId: string): Promise<Notification | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<NotificationRow>(`SELECT ${COLUMNS} FROM notifications n WHERE n.id = $1 AND n.user_id = $2 AND ${VISIBLE}`, [id, userId]);
      return rows[0] && toNotification(rows[0]);
    });
  }

  /** Marks notification `id` read or unread if it is the user's and visible; returns it, or undefined. A read one keeps when it was first read. */
  async setRead(id: string, userId: string, read: boolean): Promise<Notification | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<NotificationRow>(
        `UPDATE notifications n SET read_at = CASE WHEN $3 THEN coalesce(n.read_at, now()) END
          WHERE n.id = $1 AND n.user_id = $2 AND ${VISIBLE} RETURNING ${COLUMNS}`,
        [id, userId, read],
      );
      return rows[0] && toNotification(rows[0]);
    });
  }

  /** Marks read the user's visible unread notifications up to `mark`; returns how many. */
  async markRead(userId: string, mark: ReadMark): Promise<number> {
    return withPgErrors(async () => {
      const bound = 'upToId' in mark ? 'n.id <= $2' : 'n.created_at <= $2';
      const value = 'upToId' in mark ? mark.upToId : mark.until;
      const { rowCount } = await this.pool.query(`UPDATE notifications n SET read_at = now() WHERE n.user_id = $1 AND n.read_at IS NULL AND ${bound} AND ${VISIBLE}`, [
        userId,
        value,
      ]);
      return rowCount ?? 0;
    });
  }

  /** Stores the user's feed token hash, replacing the previous one; returns when it was created. */
  async saveFeedToken(userId: string, tokenHash: Buffer): Promise<Date> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ created_at: Date }>(
        `INSERT INTO feed_tokens (user_id, token_hash) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at
         RETURNING created_at`,
        [userId, tokenHash],
      );
      return rows[0]!.created_at;
    });
  }

  /** Deletes the user's feed token; false when there was none. */
  async deleteFeedToken(userId: string): Promise<boolean> {
    return withPgErrors(async () => {
      const { rowCount } = await this.pool.query('DELETE FROM feed_tokens WHERE user_id = $1', [userId]);
      return rowCount === 1;
    });
  }

  /** The owner of the feed token with this hash, or undefined. */
  async feedTokenOwner(tokenHash: Buffer): Promise<string | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ user_id: string }>('SELECT user_id::text AS user_id FROM feed_tokens WHERE token_hash = $1', [tokenHash]);
      return rows[0]?.user_id;
    });
  }

  /**
   * Deletes notifications older than the retention, a batch per statement (each its own
   * transaction, so the purge never holds many locks); returns how many.
   */
  async purgeExpired(): Promise<number> {
    return withPgErrors(async () => {
      let deleted = 0;
      for (;;) {
        const { rowCount } = await this.pool.query(
          `DELETE FROM notifications WHERE id IN (
             SELECT id FROM notifications WHERE created_at <= now() - make_interval(days => ${RETENTION_DAYS}) LIMIT ${PURGE_BATCH})`,
        );
        deleted += rowCount ?? 0;
        if ((rowCount ?? 0) < PURGE_BATCH) return deleted;
      }
    });
  }
}

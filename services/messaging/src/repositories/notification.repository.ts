import type pg from 'pg';
import { withPgErrors } from '@inkwell/pg';
import { KIND_CODES, kindOfCode, reasonsOfBits, RETENTION_DAYS, type HiddenNotifications, type InboxPage, type InboxQuery, type Notification, type ReadMark } from '../domain/notification.js';

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

/**
 * What the owner's blocks and mutes leave out (docs/api/safety.md), with the actors in parameter
 * $a and the tags in $t (null: none): the actor probe is on the row itself, the tag probe one
 * primary-key lookup in the story copy, only for a row with a story when tags are muted.
 */
function notHidden(a: string, t: string): string {
  return `(${a}::bigint[] IS NULL OR n.actor_id <> ALL (${a}::bigint[]))
  AND (${t}::text[] IS NULL OR n.story_id IS NULL OR NOT coalesce((SELECT s.tag_ids && ${t}::text[] FROM known_stories s WHERE s.id = n.story_id), false))`;
}

// The inbox's two statements are named: each connection plans them once (on this data planning
// took about 1.7 ms, running 0.4 ms).
const UNREAD_COUNT = `SELECT count(*)::int AS unread FROM notifications n WHERE n.user_id = $1 AND n.read_at IS NULL AND ${VISIBLE} AND ${notHidden('$2', '$3')}`;

/** One page of a user's visible notifications: $2 the id to go below, $3 read or not, $4 the kinds, $5 the rows to read (all optional but $1 and $5). */
const INBOX_PAGE = `SELECT ${COLUMNS} FROM notifications n
  WHERE n.user_id = $1 AND ($2::bigint IS NULL OR n.id < $2) AND ($3::boolean IS NULL OR (n.read_at IS NOT NULL) = $3)
    AND ($4::smallint[] IS NULL OR n.kind = ANY ($4)) AND ${VISIBLE} AND ${notHidden('$6', '$7')}
  ORDER BY n.id DESC LIMIT $5`;

/** The parameters of {@link notHidden}: null for an empty set, so that nothing is probed. */
function hiddenParams(hidden: HiddenNotifications | undefined): [string[] | null, string[] | null] {
  return [hidden !== undefined && hidden.actorIds.length > 0 ? [...hidden.actorIds] : null, hidden !== undefined && hidden.tagIds.length > 0 ? [...hidden.tagIds] : null];
}

/** A feed token's owner and their newest $2 visible notifications; a token without any is one row of nulls on their side. */
const FEED_BY_TOKEN = `SELECT t.user_id::text AS owner_id, n.* FROM feed_tokens t
   LEFT JOIN LATERAL (SELECT ${COLUMNS}, n.id AS position FROM notifications n WHERE n.user_id = t.user_id AND ${VISIBLE} ORDER BY n.id DESC LIMIT $2) n ON true
  WHERE t.token_hash = $1 ORDER BY n.position DESC`;

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
      const { rows } = await this.pool.query<NotificationRow>({
        name: 'notifications-inbox-page',
        text: INBOX_PAGE,
        values: [query.userId, query.beforeId ?? null, query.read ?? null, kinds, query.pageSize + 1, ...hiddenParams(query.hidden)],
      });
      return { notifications: rows.slice(0, query.pageSize).map(toNotification), more: rows.length > query.pageSize };
    });
  }

  /**
   * The owner of the feed token whose SHA-256 is `tokenHash` and their newest `limit` visible
   * notifications (the private feed), in one statement; undefined when no token has that hash.
   */
  async feedByToken(tokenHash: Buffer, limit: number): Promise<{ userId: string; notifications: Notification[] } | undefined> {
    return withPgErrors(async () => {
      // Named: each connection plans it once (planning costs more than running it).
      const { rows } = await this.pool.query<{ owner_id: string } & Partial<NotificationRow>>({ name: 'notifications-feed-by-token', text: FEED_BY_TOKEN, values: [tokenHash, limit] });
      if (rows[0] === undefined) return undefined;
      const notifications = rows.filter((row): row is typeof row & NotificationRow => row.id != null).map(toNotification);
      return { userId: rows[0].owner_id, notifications };
    });
  }

  /** How many visible notifications of the user are unread, leaving out what `hidden` hides. */
  async unreadCount(userId: string, hidden?: HiddenNotifications): Promise<number> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ unread: number }>({ name: 'notifications-unread-count', text: UNREAD_COUNT, values: [userId, ...hiddenParams(hidden)] });
      return rows[0]!.unread;
    });
  }

  /** Notification `id` if it is the user's and visible, else undefined. */
  async findVisible(id: string, userId: string, hidden?: HiddenNotifications): Promise<Notification | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<NotificationRow>(`SELECT ${COLUMNS} FROM notifications n WHERE n.id = $1 AND n.user_id = $2 AND ${VISIBLE} AND ${notHidden('$3', '$4')}`, [
        id,
        userId,
        ...hiddenParams(hidden),
      ]);
      return rows[0] && toNotification(rows[0]);
    });
  }

  /** Marks notification `id` read or unread if it is the user's and visible; returns it, or undefined. A read one keeps when it was first read. */
  async setRead(id: string, userId: string, read: boolean, hidden?: HiddenNotifications): Promise<Notification | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<NotificationRow>(
        `UPDATE notifications n SET read_at = CASE WHEN $3 THEN coalesce(n.read_at, now()) END
          WHERE n.id = $1 AND n.user_id = $2 AND ${VISIBLE} AND ${notHidden('$4', '$5')} RETURNING ${COLUMNS}`,
        [id, userId, read, ...hiddenParams(hidden)],
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

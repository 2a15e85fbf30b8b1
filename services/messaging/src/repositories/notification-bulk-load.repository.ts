import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Logger } from '@inkwell/logging';
import { KIND_CODES, type NotificationKind } from '../domain/notification.js';

/** One notification row for a bulk load; ids are numbers or decimal strings. */
export interface BulkNotification {
  userId: string | number;
  kind: NotificationKind;
  /** Unique per kind and user (see the notifications table). */
  subjectId: string | number;
  actorId: string | number;
  storyId?: string | number;
  chapterId?: string | number;
  blogPostId?: string | number;
  commentId?: string | number;
  privateMessageId?: string | number;
  /** Bits of REASON_BITS (chapter_published). */
  reasons?: number;
  createdAt: Date;
  read: boolean;
}

/** One follow of the local copy: follower_id follows followed_id. */
export interface BulkFollow {
  followId: string | number;
  followerId: string | number;
  followedId: string | number;
}

/** One story of the local story copy. */
export interface BulkKnownStory {
  id: string | number;
  authorId: string | number;
  published: boolean;
}

/** One chapter of the local chapter copy. */
export interface BulkKnownChapter {
  id: string | number;
  storyId: string | number;
  published: boolean;
}

const NULL = '\\N';

function value(field: string | number | boolean | Date | undefined): string {
  if (field === undefined) return NULL;
  if (field instanceof Date) return field.toISOString();
  if (typeof field === 'boolean') return field ? 't' : 'f';
  return String(field);
}

/**
 * Loads notifications and the local copies they are made from fast, for the benchmark data set
 * (10,000,000 notifications over 100,000 users, an author with 100,000 followers): COPY without
 * events. `loadNotifications` drops the table's secondary indexes first and rebuilds them from
 * their own definitions after, moves the id sequence past the last id and VACUUM ANALYZEs.
 */
export class NotificationBulkLoadRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Copies follows into the local copy (follow ids must be free). */
  async loadFollows(follows: Iterable<BulkFollow>): Promise<number> {
    const rows = mapLines(follows, (follow) => [follow.followId, follow.followerId, follow.followedId]);
    const count = await this.#copy('follows (follow_id, follower_id, followed_id)', rows);
    await this.pool.query('ANALYZE follows');
    return count;
  }

  /** Copies stories into the local story copy (ids must be free); their version is now. */
  async loadStories(stories: Iterable<BulkKnownStory>): Promise<number> {
    const now = new Date();
    const count = await this.#copy('known_stories (id, author_id, published, version)', mapLines(stories, (story) => [story.id, story.authorId, story.published, now]));
    await this.pool.query('ANALYZE known_stories');
    return count;
  }

  /** Copies chapters into the local chapter copy (ids must be free); their version is now. */
  async loadChapters(chapters: Iterable<BulkKnownChapter>): Promise<number> {
    const now = new Date();
    const count = await this.#copy('known_chapters (id, story_id, published, version)', mapLines(chapters, (chapter) => [chapter.id, chapter.storyId, chapter.published, now]));
    await this.pool.query('ANALYZE known_chapters');
    return count;
  }

  /** Copies notifications (unique per kind, subject and user), rebuilding the indexes after; returns how many, and the seconds of COPY and of the indexes. */
  async loadNotifications(notifications: Iterable<BulkNotification>, logger: Logger): Promise<{ notifications: number; copySeconds: number; indexSeconds: number }> {
    const client = await this.pool.connect();
    try {
      const { rows: indexes } = await client.query<{ name: string; definition: string }>(
        `SELECT indexname AS name, indexdef AS definition FROM pg_indexes
          WHERE schemaname = current_schema() AND tablename = 'notifications' AND indexname <> 'notifications_pkey'`,
      );
      for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
      const copyStarted = performance.now();
      const lines = mapLines(notifications, (n) => [
        n.userId,
        KIND_CODES[n.kind],
        n.subjectId,
        n.actorId,
        n.storyId,
        n.chapterId,
        n.commentId,
        n.blogPostId,
        n.privateMessageId,
        n.reasons ?? 0,
        n.createdAt,
        n.read ? n.createdAt : undefined,
      ]);
      const count = await copyInto(
        client,
        'notifications (user_id, kind, subject_id, actor_id, story_id, chapter_id, comment_id, blog_post_id, private_message_id, reasons, created_at, read_at)',
        lines,
        (copied) => logger.info({ copied }, 'notifications copied'),
      );
      const copySeconds = (performance.now() - copyStarted) / 1000;
      const indexStarted = performance.now();
      await client.query("SET maintenance_work_mem = '512MB'");
      for (const index of indexes) await client.query(index.definition);
      await client.query("SELECT setval(pg_get_serial_sequence('notifications', 'id'), greatest((SELECT max(id) FROM notifications), 1))");
      await client.query('VACUUM (ANALYZE) notifications');
      return { notifications: count, copySeconds, indexSeconds: (performance.now() - indexStarted) / 1000 };
    } finally {
      client.release();
    }
  }

  async #copy(target: string, lines: Iterable<string>): Promise<number> {
    const client = await this.pool.connect();
    try {
      return await copyInto(client, target, lines);
    } finally {
      client.release();
    }
  }
}

function* mapLines<T>(items: Iterable<T>, fields: (item: T) => Array<string | number | boolean | Date | undefined>): Iterable<string> {
  for (const item of items) yield `${fields(item).map(value).join('\t')}\n`;
}

/** COPYs text-format lines into `target` in 1 MiB chunks; returns how many lines. */
async function copyInto(client: pg.PoolClient, target: string, lines: Iterable<string>, progress?: (copied: number) => void): Promise<number> {
  let count = 0;
  const stream = client.query(copyFrom(`COPY ${target} FROM STDIN`));
  await pipeline(async function* () {
    let chunk = '';
    for (const line of lines) {
      chunk += line;
      count++;
      if (chunk.length > 1 << 20) {
        yield chunk;
        chunk = '';
      }
      if (count % 1_000_000 === 0) progress?.(count);
    }
    if (chunk !== '') yield chunk;
  }, stream);
  return count;
}

import type pg from 'pg';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import type { ReadingProgress } from '../domain/reading.js';

/** A place in the reading list: the last activity (as the database prints it) and the story id. */
export interface ReadingPosition {
  key: string;
  id: string;
}

/** One reading-list row with its position. */
export interface ReadingRow {
  progress: ReadingProgress;
  position: ReadingPosition;
}

interface ProgressRow {
  story_id: string;
  date_last_read: Date;
  position_key: string;
  num_chapters: number;
  num_read: number;
  last_chapter_read_id: string | null;
  next_chapter_id: string | null;
}

/**
 * SQL access to reading progress (migration 0012): the chapters each user marked read and, per
 * user and story, the last activity. Whether a chapter may be marked is the service's rule.
 */
export class ReadingRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Marks chapter `chapterId` of story `storyId` read for `userId` at `now` (again: a new time,
   * so it becomes the last chapter read) and makes `now` the story's last activity, in one
   * transaction. A chapter deleted meanwhile is NOT_FOUND (its foreign key).
   */
  async mark(userId: string, storyId: string, chapterId: string, now: Date): Promise<void> {
    await withPgErrors(() =>
      withTransaction(this.pool, async (client) => {
        await client.query(
          `INSERT INTO chapter_reads (user_id, story_id, chapter_id, date_read) VALUES ($1, $2, $3, $4)
           ON CONFLICT (user_id, story_id, chapter_id) DO UPDATE SET date_read = EXCLUDED.date_read`,
          [userId, storyId, chapterId, now],
        );
        await client.query(
          `INSERT INTO reading_progress (user_id, story_id, date_last_read) VALUES ($1, $2, $3)
           ON CONFLICT (user_id, story_id) DO UPDATE SET date_last_read = EXCLUDED.date_last_read`,
          [userId, storyId, now],
        );
      }),
    );
  }

  /**
   * Removes `userId`'s mark of chapter `chapterId` of story `storyId`. When a mark was removed,
   * `now` becomes the story's last activity, or the story leaves the reading list when it was the
   * story's last mark. Without a mark nothing changes.
   */
  async unmark(userId: string, storyId: string, chapterId: string, now: Date): Promise<void> {
    await withPgErrors(() =>
      withTransaction(this.pool, async (client) => {
        const { rowCount } = await client.query('DELETE FROM chapter_reads WHERE user_id = $1 AND story_id = $2 AND chapter_id = $3', [userId, storyId, chapterId]);
        if (rowCount === 0) return;
        const { rows } = await client.query<{ marked: boolean }>(
          'SELECT EXISTS (SELECT 1 FROM chapter_reads WHERE user_id = $1 AND story_id = $2) AS marked',
          [userId, storyId],
        );
        if (rows[0]?.marked) await client.query('UPDATE reading_progress SET date_last_read = $3 WHERE user_id = $1 AND story_id = $2', [userId, storyId, now]);
        else await client.query('DELETE FROM reading_progress WHERE user_id = $1 AND story_id = $2', [userId, storyId]);
      }),
    );
  }

  /** Which of `chapters` (ids with their story ids) `userId` has marked read. */
  async readChapterIds(userId: string, chapters: readonly { id: string; storyId: string }[]): Promise<Set<string>> {
    if (chapters.length === 0) return new Set();
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<{ chapter_id: string }>({
        name: 'reading.read-chapters',
        text: `SELECT r.chapter_id::text AS chapter_id FROM chapter_reads r
               WHERE r.user_id = $1 AND r.story_id = ANY($2::bigint[]) AND r.chapter_id = ANY($3::bigint[])`,
        values: [userId, [...new Set(chapters.map((chapter) => chapter.storyId))], chapters.map((chapter) => chapter.id)],
      });
      return new Set(rows.map((row) => row.chapter_id));
    });
  }

  /**
   * One page of `userId`'s reading list: the published stories with a row in reading_progress,
   * the most recent activity first (ties by story id, descending), after `after`; `limit + 1` rows
   * so the caller knows whether more follow. The page is chosen first, by a walk of
   * reading_progress_recent_idx that skips stories not published now; only its rows then read their
   * marks and chapters (each one slice of chapter_reads' key and of the story's chapters), so the
   * cost grows with the page, not with the list.
   */
  async listPage(userId: string, limit: number, after?: ReadingPosition): Promise<ReadingRow[]> {
    return withPgErrors(async () => {
      const values: unknown[] = [userId, limit + 1];
      const keyset = after ? `AND (p.date_last_read, p.story_id) < ($3::timestamptz, $4::bigint)` : '';
      if (after) values.push(after.key, after.id);
      const { rows } = await this.pool.query<ProgressRow>({
        name: after ? 'reading.page-after' : 'reading.page-first',
        text: `SELECT page.story_id::text AS story_id, page.date_last_read, page.date_last_read::text AS position_key, page.num_chapters,
                      marks.num_read, last_read.id::text AS last_chapter_read_id, next_chapter.id::text AS next_chapter_id
                 FROM (SELECT p.story_id, p.date_last_read, s.num_chapters
                         FROM reading_progress p JOIN stories s ON s.id = p.story_id AND s.published
                        WHERE p.user_id = $1 ${keyset}
                        ORDER BY p.date_last_read DESC, p.story_id DESC
                        LIMIT $2) page
                 CROSS JOIN LATERAL (
                   SELECT count(*)::int AS num_read FROM chapter_reads r JOIN chapters c ON c.id = r.chapter_id AND c.published
                    WHERE r.user_id = $1 AND r.story_id = page.story_id) marks
                 LEFT JOIN LATERAL (
                   SELECT r.chapter_id AS id FROM chapter_reads r JOIN chapters c ON c.id = r.chapter_id AND c.published
                    WHERE r.user_id = $1 AND r.story_id = page.story_id
                    ORDER BY r.date_read DESC, c.chapter_number DESC LIMIT 1) last_read ON true
                 LEFT JOIN LATERAL (
                   SELECT c.id FROM chapters c
                    WHERE c.story_id = page.story_id AND c.published
                      AND NOT EXISTS (SELECT 1 FROM chapter_reads r WHERE r.user_id = $1 AND r.story_id = page.story_id AND r.chapter_id = c.id)
                    ORDER BY c.chapter_number LIMIT 1) next_chapter ON true
                ORDER BY page.date_last_read DESC, page.story_id DESC`,
        values,
      });
      return rows.map((row) => ({
        progress: {
          storyId: row.story_id,
          lastChapterReadId: row.last_chapter_read_id,
          nextChapterId: row.next_chapter_id,
          numChaptersRead: row.num_read,
          numUnreadChapters: Math.max(0, row.num_chapters - row.num_read),
          dateLastRead: row.date_last_read,
        },
        position: { key: row.position_key, id: row.story_id },
      }));
    });
  }
}

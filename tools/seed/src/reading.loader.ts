import type pg from 'pg';
import type { Logger } from '@inkwell/logging';

/** What seedReading makes. */
export interface SeedReadingOptions {
  /** Published stories the reader has started. */
  stories: number;
  seed: number;
  logger: Logger;
}

/** How far back the reader's activity goes. */
const ACTIVITY_DAYS = 365;

/**
 * The reading-progress data set (docs/api/stories.md, "Reading progress"): the user with the
 * lowest id has started `stories` published stories (chosen by `seed`), with the first half
 * (rounded up) of each one's published chapters marked read, and their last activity spread over
 * the past year, as marking through the API would have left them (stories.chapter_reads and
 * stories.reading_progress, migration 0012). Replaces that reader's progress. Returns the reader.
 */
export async function seedReading(usersPool: pg.Pool, storiesPool: pg.Pool, options: SeedReadingOptions): Promise<{ reader: string; stories: number; chapters: number }> {
  const { rows } = await usersPool.query<{ id: string }>('SELECT id::text FROM users ORDER BY id LIMIT 1');
  const reader = rows[0]?.id;
  if (reader === undefined) throw new Error('--reading needs a user: seed some stories (and so their authors) first');
  const client = await storiesPool.connect();
  try {
    await client.query('BEGIN');
    await client.query('DELETE FROM chapter_reads WHERE user_id = $1', [reader]);
    await client.query('DELETE FROM reading_progress WHERE user_id = $1', [reader]);
    // Stories by a hash of their id and the seed: a stable, spread-out choice.
    await client.query(
      `CREATE TEMP TABLE started ON COMMIT DROP AS
         SELECT s.id AS story_id, now() - (abs(hashtext(s.id::text || ':' || $2::text)::bigint) % ${ACTIVITY_DAYS * 86_400}) * interval '1 second' AS at
           FROM stories s
          WHERE s.published AND s.num_chapters > 0
          ORDER BY md5(s.id::text || $2::text)
          LIMIT $1`,
      [options.stories, String(options.seed)],
    );
    const marks = await client.query(
      `INSERT INTO chapter_reads (user_id, story_id, chapter_id, date_read)
       SELECT $1::bigint, c.story_id, c.id, t.at - ((s.num_chapters - c.chapter_number) * interval '1 hour')
         FROM started t JOIN stories s ON s.id = t.story_id JOIN chapters c ON c.story_id = t.story_id AND c.published
        WHERE c.chapter_number <= (s.num_chapters + 1) / 2`,
      [reader],
    );
    const progress = await client.query(
      'INSERT INTO reading_progress (user_id, story_id, date_last_read) SELECT $1::bigint, story_id, at FROM started',
      [reader],
    );
    await client.query('COMMIT');
    await client.query('VACUUM (ANALYZE) chapter_reads, reading_progress');
    options.logger.info({ reader, stories: progress.rowCount, chapters: marks.rowCount }, 'reading progress loaded');
    return { reader, stories: progress.rowCount ?? 0, chapters: marks.rowCount ?? 0 };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

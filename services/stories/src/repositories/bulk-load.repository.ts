import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { appendEvent } from '@inkwell/events';
import type { Logger } from '@inkwell/logging';
import { withTransaction } from '@inkwell/pg';
import type { Story } from '../domain/story.js';
import type { Chapter } from '../domain/chapter.js';
import { chapterCreated, storyCreated, storyUpdated } from '../events/story.events.js';
import type { GeneratedChapter, GeneratedStory, SeedTag } from '../seed/story.generator.js';

/** How to load generated data. */
export interface BulkLoadOptions {
  /**
   * Drop the secondary indexes and foreign keys of stories and chapters while loading and build
   * them afterwards (much faster for large loads; the tables are unusable meanwhile).
   */
  rebuildIndexes: boolean;
  /** Write the events a real author would have caused (StoryCreated, StoryUpdated, ChapterCreated). */
  emitEvents: boolean;
  logger: Logger;
}

/** What a load added. */
export interface BulkLoadResult {
  stories: number;
  chapters: number;
}

const STORY_STAGE_COLUMNS = [
  'id', 'author_id', 'title', 'short_description', 'description', 'description_html', 'status', 'content_rating', 'published', 'tag_ids',
  'num_words', 'num_chapters', 'num_views', 'num_likes', 'num_dislikes', 'num_comments', 'rating', 'hotness', 'date_published',
  'date_modified', 'date_updated',
];
const CHAPTER_COLUMNS = [
  'id', 'story_id', 'chapter_number', 'title', 'content', 'content_html', 'authors_note', 'authors_note_html', 'published', 'num_words',
  'num_views', 'date_published', 'date_modified',
];

/** One value in COPY text format. */
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (Array.isArray(value)) return `{${value.map((item) => `"${String(item).replace(/["\\]/g, '\\$&')}"`).join(',')}}`.replace(/\\/g, '\\\\');
  return String(value).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

function copyLine(values: readonly unknown[]): string {
  return `${values.map(copyValue).join('\t')}\n`;
}

function storyLine(story: GeneratedStory): string {
  return copyLine([
    story.id, story.authorId, story.title, story.shortDescription, story.description, story.descriptionHtml, story.status, story.contentRating,
    story.published, story.tagIds, story.numWords, story.numChapters, story.numViews, story.numLikes, story.numDislikes, story.numComments,
    story.rating, story.hotness, story.datePublished, story.dateModified, story.dateUpdated,
  ]);
}

function chapterLine(chapter: GeneratedChapter): string {
  return copyLine([
    chapter.id, chapter.storyId, chapter.chapterNumber, chapter.title, chapter.content, chapter.contentHtml, chapter.authorsNote,
    chapter.authorsNoteHtml, chapter.published, chapter.numWords, chapter.numViews, chapter.datePublished, chapter.dateModified,
  ]);
}

async function write(stream: Writable, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/**
 * Loads generated stories fast: COPY into unlogged staging tables, then one INSERT … SELECT per
 * table (computing each story's search vector in SQL, split over two connections), then exact
 * tag counts. Used by the data generator (a million stories) and the demo seed (a few hundred).
 */
export class BulkLoadRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The first free story and chapter ids. */
  async nextIds(): Promise<{ story: number; chapter: number }> {
    const { rows } = await this.pool.query<{ story: string; chapter: string }>(
      'SELECT (SELECT coalesce(max(id), 0) + 1 FROM stories) AS story, (SELECT coalesce(max(id), 0) + 1 FROM chapters) AS chapter',
    );
    return { story: Number(rows[0]!.story), chapter: Number(rows[0]!.chapter) };
  }

  /** How many stories exist. */
  async countStories(): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM stories');
    return Number(rows[0]!.n);
  }

  /** The tag catalogue in catalogue order. */
  async tags(): Promise<SeedTag[]> {
    const { rows } = await this.pool.query<SeedTag>('SELECT id, name, kind FROM tags ORDER BY kind, number');
    return rows;
  }

  /** Loads `stories` (consumed lazily) and returns how many stories and chapters were added. */
  async load(stories: Iterable<GeneratedStory>, options: BulkLoadOptions): Promise<BulkLoadResult> {
    const { logger } = options;
    const started = Date.now();
    const setup = await this.pool.connect();
    try {
      await setup.query('DROP TABLE IF EXISTS seed_story_stage, seed_chapter_stage');
      await setup.query(`CREATE UNLOGGED TABLE seed_story_stage AS SELECT s.id, s.author_id, s.title, s.short_description, t.description, t.description_html,
        s.status, s.content_rating, s.published, s.tag_ids, s.num_words, s.num_chapters, s.num_views, s.num_likes, s.num_dislikes, s.num_comments,
        s.rating, s.hotness, s.date_published, s.date_modified, s.date_updated FROM stories s JOIN story_texts t ON t.story_id = s.id WITH NO DATA`);
      await setup.query(`CREATE UNLOGGED TABLE seed_chapter_stage AS SELECT ${CHAPTER_COLUMNS.join(', ')} FROM chapters WITH NO DATA`);
    } finally {
      setup.release();
    }

    const storyClient = await this.pool.connect();
    const chapterClient = await this.pool.connect();
    let counts: BulkLoadResult = { stories: 0, chapters: 0 };
    const kept: GeneratedStory[] = [];
    try {
      const storyCopy = storyClient.query(copyFrom(`COPY seed_story_stage (${STORY_STAGE_COLUMNS.join(', ')}) FROM STDIN`));
      const chapterCopy = chapterClient.query(copyFrom(`COPY seed_chapter_stage (${CHAPTER_COLUMNS.join(', ')}) FROM STDIN`));
      const storyDone = new Promise<void>((resolve, reject) => storyCopy.on('finish', resolve).on('error', reject));
      const chapterDone = new Promise<void>((resolve, reject) => chapterCopy.on('finish', resolve).on('error', reject));
      let storyBuffer = '';
      let chapterBuffer = '';
      for (const story of stories) {
        storyBuffer += storyLine(story);
        for (const chapter of story.chapters) chapterBuffer += chapterLine(chapter);
        counts = { stories: counts.stories + 1, chapters: counts.chapters + story.chapters.length };
        if (options.emitEvents) kept.push(story);
        if (storyBuffer.length > 1 << 20) {
          await write(storyCopy, storyBuffer);
          storyBuffer = '';
        }
        if (chapterBuffer.length > 1 << 20) {
          await write(chapterCopy, chapterBuffer);
          chapterBuffer = '';
        }
        if (counts.stories % 100_000 === 0) logger.info({ stories: counts.stories, seconds: (Date.now() - started) / 1000 }, 'generated');
      }
      storyCopy.end(storyBuffer);
      chapterCopy.end(chapterBuffer);
      await Promise.all([storyDone, chapterDone]);
    } finally {
      storyClient.release();
      chapterClient.release();
    }
    logger.info({ ...counts, seconds: (Date.now() - started) / 1000 }, 'staged');

    const rebuild = options.rebuildIndexes ? await this.dropSecondaryIndexes() : [];
    await this.insertFromStage();
    logger.info({ seconds: (Date.now() - started) / 1000 }, 'inserted');
    if (rebuild.length > 0) {
      await this.runOnTwoConnections(rebuild, (sql) => logger.info({ sql: sql.slice(0, 80), seconds: (Date.now() - started) / 1000 }, 'rebuilding'));
      logger.info({ seconds: (Date.now() - started) / 1000 }, 'indexes rebuilt');
    }
    await this.pool.query('DROP TABLE seed_story_stage, seed_chapter_stage');
    await this.pool.query(`UPDATE tags SET num_stories = coalesce(c.n, 0)
      FROM tags t LEFT JOIN (SELECT tag, count(*)::int AS n FROM stories, unnest(tag_ids) AS tag WHERE published GROUP BY tag) c ON c.tag = t.id
      WHERE tags.id = t.id`);
    await this.pool.query("SELECT setval(pg_get_serial_sequence('stories', 'id'), (SELECT coalesce(max(id), 1) FROM stories))");
    await this.pool.query("SELECT setval(pg_get_serial_sequence('chapters', 'id'), (SELECT coalesce(max(id), 1) FROM chapters))");
    if (options.emitEvents) await this.appendEvents(kept);
    if (options.rebuildIndexes) await this.pool.query('VACUUM (ANALYZE) stories, story_texts, chapters, tags');
    else await this.pool.query('ANALYZE stories, story_texts, chapters, tags');
    logger.info({ ...counts, seconds: (Date.now() - started) / 1000 }, 'loaded');
    return counts;
  }

  private async insertFromStage(): Promise<void> {
    const { rows } = await this.pool.query<{ low: string | null; high: string | null }>('SELECT min(id) AS low, max(id) AS high FROM seed_story_stage');
    const low = Number(rows[0]!.low ?? 0);
    const high = Number(rows[0]!.high ?? -1);
    if (high < low) return;
    const middle = Math.floor((low + high) / 2);
    const insertStories = (from: number, to: number) => `INSERT INTO stories (id, author_id, title, short_description, status, content_rating, published,
        tag_ids, num_words, num_chapters, num_views, num_likes, num_dislikes, num_comments, rating, hotness, date_published, date_modified,
        date_updated, search_vector)
      SELECT id, author_id, title, short_description, status, content_rating, published, tag_ids, num_words, num_chapters, num_views, num_likes,
        num_dislikes, num_comments, rating, hotness, date_published, date_modified, date_updated,
        story_search_vector(title, short_description, description, tag_ids)
      FROM seed_story_stage WHERE id BETWEEN ${from} AND ${to} ORDER BY id`;
    await this.runOnTwoConnections([insertStories(low, middle), insertStories(middle + 1, high)]);
    await this.runOnTwoConnections([
      'INSERT INTO story_texts (story_id, description, description_html) SELECT id, description, description_html FROM seed_story_stage ORDER BY id',
      `INSERT INTO chapters (${CHAPTER_COLUMNS.join(', ')}) SELECT ${CHAPTER_COLUMNS.join(', ')} FROM seed_chapter_stage ORDER BY id`,
    ]);
  }

  /** Drops the plain secondary indexes and foreign keys of the story tables; returns the SQL that recreates them. */
  private async dropSecondaryIndexes(): Promise<string[]> {
    const { rows: indexes } = await this.pool.query<{ name: string; definition: string }>(
      `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
       WHERE i.schemaname = current_schema() AND i.tablename IN ('stories', 'chapters', 'story_texts')
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = current_schema()::regnamespace)`,
    );
    const { rows: foreignKeys } = await this.pool.query<{ name: string; table: string; definition: string }>(
      `SELECT c.conname AS name, c.conrelid::regclass::text AS table, pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c
       WHERE c.connamespace = current_schema()::regnamespace AND c.contype = 'f'
         AND c.conrelid::regclass::text IN ('stories', 'chapters', 'story_texts')`,
    );
    for (const index of indexes) await this.pool.query(`DROP INDEX ${index.name}`);
    for (const key of foreignKeys) await this.pool.query(`ALTER TABLE ${key.table} DROP CONSTRAINT ${key.name}`);
    // GIN indexes first: they take longest, so the two connections finish together.
    const ordered = [...indexes].sort((a, b) => Number(b.definition.includes('USING gin')) - Number(a.definition.includes('USING gin')));
    return [...ordered.map((index) => index.definition), ...foreignKeys.map((key) => `ALTER TABLE ${key.table} ADD CONSTRAINT ${key.name} ${key.definition}`)];
  }

  /** Runs statements over two connections at once (each takes the next one when done). */
  private async runOnTwoConnections(statements: readonly string[], onStart?: (sql: string) => void): Promise<void> {
    const queue = [...statements];
    const worker = async () => {
      const client = await this.pool.connect();
      try {
        await client.query("SET maintenance_work_mem = '512MB'");
        for (let sql = queue.shift(); sql !== undefined; sql = queue.shift()) {
          onStart?.(sql);
          await client.query(sql);
        }
      } finally {
        client.release();
      }
    };
    await Promise.all([worker(), worker()]);
  }

  private async appendEvents(stories: readonly GeneratedStory[]): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      for (const generated of stories) {
        const published = asStory(generated);
        const draft: Story = { ...published, published: false, numWords: 0, numChapters: 0, datePublished: null, dateUpdated: null, chapterIds: [] };
        await appendEvent(client, { key: published.id, payload: storyCreated(draft) });
        for (const chapter of generated.chapters) {
          await appendEvent(client, { key: String(chapter.id), payload: chapterCreated(asChapter(chapter), published.authorId) });
        }
        if (published.published) await appendEvent(client, { key: published.id, payload: storyUpdated(draft, published) });
      }
    });
  }
}

function asStory(story: GeneratedStory): Story {
  return {
    ...story,
    id: String(story.id),
    chapterIds: story.chapters.map((chapter) => String(chapter.id)),
  };
}

function asChapter(chapter: GeneratedChapter): Chapter {
  return { ...chapter, id: String(chapter.id), storyId: String(chapter.storyId) };
}

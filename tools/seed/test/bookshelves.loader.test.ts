import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@inkwell/logging';
import { createPool } from '@inkwell/pg';
import { BulkLoadRepository, generateStories } from '@inkwell/stories';
import { dropSchemas, ensureDatabase, stackEnv } from '@inkwell/testing';
import type pg from 'pg';
import { loadAuthors } from '../src/authors.loader.js';
import { seedBookshelves } from '../src/bookshelves.loader.js';
import { migrateSeedSchemas, SEED_SCHEMAS } from '../src/schemas.js';

const BIG = 500;
const MEDIUM = 120;
const ORDINARY = 3000;

/**
 * The bookshelves seed leaves both services' data as the running system would hold it: counts the
 * API shows match the items, and the stories service's copy (the source of shelf-filtered story
 * lists, docs/api/stories.md, "Bookshelves in story lists") matches the shelves and the stories.
 */
describe('seedBookshelves', () => {
  const logger = createLogger('seed-test');
  let url: string;
  let pool: pg.Pool;
  const rows = async <T extends object>(sql: string) => (await pool.query<T>(sql)).rows;

  beforeAll(async () => {
    url = await ensureDatabase(stackEnv().databaseUrl, 'inkwell_test_seed_bookshelves');
    await dropSchemas(url, SEED_SCHEMAS.map(({ schema }) => schema));
    await migrateSeedSchemas(url, logger);
    pool = createPool({ connectionString: url, schema: 'stories', max: 2 });
    const usersPool = createPool({ connectionString: url, schema: 'users', max: 1 });
    try {
      const authors = await loadAuthors(usersPool, 60, 1);
      const bulk = new BulkLoadRepository(pool);
      const first = await bulk.nextIds();
      const stories = generateStories({ published: 2000, drafts: 0, firstStoryId: first.story, firstChapterId: first.chapter, authors, tags: await bulk.tags(), now: new Date(), seed: 1 });
      await bulk.load(stories, { rebuildIndexes: false, emitEvents: false, logger });
    } finally {
      await usersPool.end();
    }
    await seedBookshelves(url, { ordinaryItems: ORDINARY, bigShelf: BIG, mediumShelf: MEDIUM, seed: 1, logger });
  });

  afterAll(async () => {
    await pool?.end();
  });

  it('makes the big public shelf and the medium private one the two biggest, each its owner\'s only shelf', async () => {
    const shelves = await rows<{ num_items: number; privacy: string; shelves_of_owner: string }>(
      `SELECT num_items, privacy, (SELECT count(*) FROM bookshelves.bookshelves o WHERE o.owner_id = b.owner_id) AS shelves_of_owner
         FROM bookshelves.bookshelves b ORDER BY num_items DESC, id LIMIT 3`,
    );
    expect(shelves.slice(0, 2)).toEqual([
      { num_items: BIG, privacy: 'public', shelves_of_owner: '1' },
      { num_items: MEDIUM, privacy: 'private', shelves_of_owner: '1' },
    ]);
    expect(shelves[2]!.num_items).toBeLessThan(MEDIUM);
    const [total] = await rows<{ n: string }>('SELECT count(*) AS n FROM bookshelves.bookshelf_items');
    expect(Number(total!.n)).toBe(BIG + MEDIUM + ORDINARY);
  });

  it('keeps every shelf\'s counts equal to its items, and shelves only published stories once each', async () => {
    const wrong = await rows(
      `SELECT b.id FROM bookshelves.bookshelves b
         LEFT JOIN (SELECT i.bookshelf_id, count(*) AS items, count(*) FILTER (WHERE k.published) AS stories,
                           count(*) FILTER (WHERE k.published AND NOT i.read) AS unread, count(DISTINCT i.story_id) AS distinct_stories
                      FROM bookshelves.bookshelf_items i JOIN bookshelves.known_stories k ON k.id = i.story_id GROUP BY i.bookshelf_id) c ON c.bookshelf_id = b.id
        WHERE (b.num_items, b.num_stories, b.num_unread) IS DISTINCT FROM (c.items, c.stories, c.unread) OR c.distinct_stories <> c.items OR c.stories <> c.items`,
    );
    expect(wrong).toEqual([]);
    const unknown = await rows(
      `SELECT k.id FROM bookshelves.known_stories k JOIN stories.stories s ON s.id = k.id
        WHERE (k.author_id, k.published, k.version, k.deleted) IS DISTINCT FROM (s.author_id, s.published, s.date_modified, false)`,
    );
    expect(unknown).toEqual([]);
  });

  it('writes the stories service\'s copy exactly as its consumer would: every item current, with its story\'s values', async () => {
    const items = await rows(
      `SELECT i.id FROM bookshelves.bookshelf_items i FULL JOIN stories.bookshelf_items c ON c.id = i.id
        WHERE (i.bookshelf_id, i.story_id, i.read, i.date_added) IS DISTINCT FROM (c.bookshelf_id, c.story_id, c.read, c.date_added)
           OR NOT c.current OR c.removed`,
    );
    expect(items).toEqual([]);
    const shelves = await rows(
      `SELECT b.id FROM bookshelves.bookshelves b FULL JOIN stories.bookshelves c ON c.id = b.id
        WHERE (b.owner_id, b.privacy = 'private', false) IS DISTINCT FROM (c.owner_id, c.private, c.deleted)`,
    );
    expect(shelves).toEqual([]);
    const stale = await rows(
      `SELECT c.id FROM stories.bookshelf_items c JOIN stories.stories s ON s.id = c.story_id
        WHERE (c.published, c.author_id, c.tag_ids, c.num_words, c.status, c.date_published, c.search_vector)
              IS DISTINCT FROM (s.published, s.author_id, s.tag_ids, s.num_words, s.status, s.date_published, s.search_vector)`,
    );
    expect(stale).toEqual([]);
  });

  it('moves the id sequences past the loaded rows, so shelves and items made later get new ids', async () => {
    const [ids] = await rows<{ shelf: boolean; item: boolean }>(
      `SELECT nextval(pg_get_serial_sequence('bookshelves.bookshelves', 'id')) > (SELECT max(id) FROM bookshelves.bookshelves) AS shelf,
              nextval(pg_get_serial_sequence('bookshelves.bookshelf_items', 'id')) > (SELECT max(id) FROM bookshelves.bookshelf_items) AS item`,
    );
    expect(ids).toEqual({ shelf: true, item: true });
  });
});

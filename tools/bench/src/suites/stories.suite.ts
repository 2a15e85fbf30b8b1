import type pg from 'pg';
import type { BenchRequest } from '../load.runner.js';
import { pageByCursor } from '../cursors.js';
import { explainStoryPage as explain, withSchema } from '../plans.js';
import { migrateSchemas, runSeed, scaled } from '../seed.runner.js';
import type { BenchContext, PrepareOptions, Scenario, Suite } from '../suite.js';

/** Published stories the suite measures against. */
const STORIES = 1_000_000;
const AUTHORS = 50_000;
/** Readers (seeded users with a token each) that requests rotate through. */
const READERS = 8;
/** How many concrete requests each scenario cycles through. */
const VARIANTS = 40;
/** The page reached by following cursors. */
const DEEP_PAGE = 200;
/** Searches of the mix: the first matches most of the corpus; the others go from common to rare. */
const BROAD_WORD = 'heart';
const OTHER_SEARCHES = ['bennet', 'forest', 'sherlock', 'lennox', 'heart crown', '"sherlock holmes"', 'lost letter', 'midnight -garden'];

function withDatabase<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withSchema(databaseUrl, 'stories', fn);
}

async function publishedCount(databaseUrl: string): Promise<number> {
  return withDatabase(databaseUrl, async (client) => {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM stories WHERE published');
    return Number(rows[0]!.n);
  });
}

const desc = 'desc' as const;

/**
 * Seeds the suite's stories (STORIES at `options.scale`) unless the database has them already;
 * migrates every schema first, so an empty database works. The shelves suite builds on it.
 */
export async function prepareStories(databaseUrl: string, options: PrepareOptions): Promise<void> {
  migrateSchemas(databaseUrl);
  const want = scaled(STORIES, options.scale, 1000);
  const have = await publishedCount(databaseUrl);
  if (have >= want) return;
  runSeed(databaseUrl, ['--stories', String(want - have), '--authors', String(scaled(AUTHORS, options.scale, 10))]);
}

/**
 * Stories (issue 4) at a million published stories through the gateway with real tokens: by id,
 * the default browse, each filter alone, two tags, a word range sorted by rating, searches sorted
 * by relevance (one word in most stories, and others from common to rare), and the 200th page
 * reached by following cursors next to the first.
 */
export const storiesSuite: Suite = {
  name: 'stories',
  dataSet: `${STORIES.toLocaleString('en')} published stories (and 2% drafts) by ${AUTHORS.toLocaleString('en')} authors, about 3 chapters each (tools/seed)`,

  async prepare(databaseUrl, options) {
    await prepareStories(databaseUrl, options);
  },

  async scenarios(context: BenchContext): Promise<Scenario[]> {
    const db = context.databaseUrl;
    const sample = await withDatabase(db, async (client) => {
      const column = async (sql: string, values: unknown[] = []) => (await client.query<{ v: string }>(sql, values)).rows.map((row) => String(row.v));
      return {
        readers: await column('SELECT author_id AS v FROM stories GROUP BY author_id ORDER BY md5(author_id::text) LIMIT $1', [READERS]),
        ids: await column('SELECT id AS v FROM stories WHERE published ORDER BY md5(id::text) LIMIT $1', [VARIANTS * 20]),
        authors: await column('SELECT author_id AS v FROM stories WHERE published GROUP BY author_id ORDER BY md5(author_id::text) LIMIT $1', [VARIANTS]),
        tags: await column("SELECT id AS v FROM tags WHERE num_stories > 0 ORDER BY md5(id) LIMIT $1", [VARIANTS]),
        genres: await column("SELECT id AS v FROM tags WHERE kind = 'genre' ORDER BY num_stories DESC LIMIT 10"),
        characters: await column("SELECT id AS v FROM tags WHERE kind = 'character' ORDER BY num_stories DESC LIMIT 20"),
      };
    });
    const tokens = await Promise.all(sample.readers.map((id) => context.mintToken(id, [])));
    const requests = (paths: readonly string[]): BenchRequest[] => paths.map((path, i) => ({ path, token: tokens[i % tokens.length]! }));
    const variants = <T>(values: readonly T[], path: (value: T, index: number) => string) => requests(values.map(path));

    const months = Array.from({ length: VARIANTS }, (_, i) => {
      const start = new Date(Date.UTC(2021, 0, 1));
      start.setUTCMonth(start.getUTCMonth() + i);
      const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0));
      return [start.toISOString().slice(0, 10), end.toISOString().slice(0, 10)] as const;
    });
    const wordRanges = [[1000, 5000], [undefined, 2000], [10000, undefined], [5000, 20000]] as const;
    const range = ([min, max]: readonly [number | undefined, number | undefined]) => `${min ?? ''},${max ?? ''}`;
    const pairs = Array.from({ length: VARIANTS }, (_, i) => [sample.genres[i % sample.genres.length]!, sample.characters[i % sample.characters.length]!] as const);
    const statuses = ['complete', 'incomplete', 'on-hiatus', 'cancelled'] as const;

    const deep = await Promise.all(tokens.slice(0, 4).map((token) => pageByCursor(context, '/stories', token, DEEP_PAGE)));
    const deepPosition = await withDatabase(db, async (client) => {
      const { rows } = await client.query<{ key: string; id: string }>(
        'SELECT date_published::text AS key, id::text AS id FROM stories WHERE published ORDER BY date_published DESC, id DESC OFFSET $1 LIMIT 1',
        [(DEEP_PAGE - 1) * 20 - 1],
      );
      return rows[0]!;
    });

    return [
      { name: 'by id: `/stories/:id`', requests: variants(sample.ids.slice(0, VARIANTS * 2), (id) => `/stories/${id}`), indexes: async () => 'stories_pkey, story_texts_pkey, chapters_story_number_key' },
      { name: 'default browse: `/stories` (page 1, newest first)', requests: requests(['/stories']), indexes: explain(db, { sort: { field: 'date_published', direction: desc } }) },
      {
        name: `default browse, page ${DEEP_PAGE} (reached by following \`links.next\`)`,
        requests: deep,
        indexes: explain(db, { sort: { field: 'date_published', direction: desc }, after: deepPosition }),
      },
      {
        name: '`filter[ids]` (20 ids)',
        requests: variants(Array.from({ length: VARIANTS }, (_, i) => sample.ids.slice(i * 20, i * 20 + 20)), (ids) => `/stories?filter[ids]=${ids.join(',')}`),
        indexes: explain(db, { ids: sample.ids.slice(0, 20), sort: { field: 'date_published', direction: desc } }),
      },
      {
        name: '`filter[author]`',
        requests: variants(sample.authors, (id) => `/stories?filter[author]=${id}`),
        indexes: explain(db, { authorId: sample.authors[0]!, sort: { field: 'date_published', direction: desc } }),
      },
      {
        name: '`filter[num_words]` (ranges, open and closed)',
        requests: variants(wordRanges, (r) => `/stories?filter[num_words]=${range(r)}`),
        indexes: explain(db, { numWordsMin: 1000, numWordsMax: 5000, sort: { field: 'date_published', direction: desc } }),
      },
      {
        name: '`filter[status]` (each status)',
        requests: variants(statuses, (status) => `/stories?filter[status]=${status}`),
        indexes: explain(db, { status: 'cancelled', sort: { field: 'date_published', direction: desc } }),
      },
      {
        name: '`filter[date_published]` (one month, dates without time)',
        requests: variants(months, ([from, to]) => `/stories?filter[date_published]=${from},${to}`),
        indexes: explain(db, { datePublishedMin: new Date('2023-03-01T00:00:00Z'), datePublishedMax: new Date('2023-03-31T23:59:59.999Z'), sort: { field: 'date_published', direction: desc } }),
      },
      {
        name: '`filter[tags]` (one tag, common to rare)',
        requests: variants(sample.tags, (tag) => `/stories?filter[tags]=${tag}`),
        indexes: explain(db, { tagIds: [sample.tags[0]!], sort: { field: 'date_published', direction: desc } }),
      },
      {
        name: '`filter[tags]` (two tags: a genre and a character, all of them)',
        requests: variants(pairs, ([a, b]) => `/stories?filter[tags]=${a},${b}`),
        indexes: explain(db, { tagIds: [...pairs[0]!], sort: { field: 'date_published', direction: desc } }),
      },
      {
        name: '`filter[num_words]` range, `sort=-rating`',
        requests: variants(wordRanges, (r) => `/stories?filter[num_words]=${range(r)}&sort=-rating`),
        indexes: explain(db, { numWordsMin: 1000, numWordsMax: 5000, sort: { field: 'rating', direction: desc } }),
      },
      {
        name: `search \`query=${BROAD_WORD}&sort=-relevance\` (the word is in 72% of stories)`,
        requests: requests([`/stories?query=${BROAD_WORD}&sort=-relevance`]),
        indexes: explain(db, { text: BROAD_WORD, sort: { field: 'relevance', direction: desc } }),
      },
      {
        name: `search \`sort=-relevance\`, other queries (${OTHER_SEARCHES.map((q) => `\`${q}\``).join(', ')})`,
        requests: variants(OTHER_SEARCHES, (q) => `/stories?query=${encodeURIComponent(q)}&sort=-relevance`),
        indexes: explain(db, { text: 'sherlock', sort: { field: 'relevance', direction: desc } }),
      },
    ];
  },
};

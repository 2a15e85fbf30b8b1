import { loadavg } from 'node:os';
import type pg from 'pg';
import { eventually } from '@inkwell/testing';
import { pageByCursor } from '../cursors.js';
import { measureFreshness, type ChangeTarget } from '../freshness.js';
import type { BenchRequest } from '../load.runner.js';
import { withSchema } from '../plans.js';
import { engineTime, indexedStories, positionAt, rebuildStoryIndex, type StorySearch } from '../search.js';
import { migrateSchemas, runSeed, scaled } from '../seed.runner.js';
import type { BenchContext, PrepareOptions, Scenario, Suite } from '../suite.js';

/** Published stories the suite measures against. */
const STORIES = 1_000_000;
const AUTHORS = 50_000;
/** Readers (seeded users with a token each) that requests rotate through. */
const READERS = 8;
/** How many concrete requests each scenario cycles through. */
const VARIANTS = 40;
/** The page reached by following cursors (at a smaller --scale, the same share of it, at least 2: the lists are shorter). */
const DEEP_PAGE = 200;
/** The word in most stories (72%); single words from common to rare; two-word queries; the query syntax. */
const BROAD_WORD = 'heart';
const ONE_WORD_SEARCHES = ['bennet', 'forest', 'sherlock', 'lennox'];
const TWO_WORD_SEARCHES = ['heart crown', 'lost letter', 'sherlock holmes', 'midnight garden', 'forest ghost'];
const SYNTAX_SEARCHES = ['"sherlock holmes"', 'midnight -garden', 'dracula or othello', '"lost letter" -heart'];
/** Targets through the gateway (issue 29, tightening issue 9's): filters, sorts and browsing; relevance; tag facets. */
const LIST_TARGET_MS = 12;
const RELEVANCE_TARGET_MS = 20;
const FACETS_TARGET_MS = 60;
/** Event-to-searchable: title changes per second through the gateway, how many, and the p95 target. */
const CHANGES_PER_SECOND = 50;
const CHANGES = 500;
const FRESHNESS_TARGET_MS = 1000;
/** Unmeasured writes before the measured ones. */
const WARM_UP_WRITES = 20;
/** A change not searchable after this long counts as missed. */
const FRESHNESS_TIMEOUT_MS = 30_000;
/** How long restoring one changed title may keep failing (e.g. 503 on a busy machine). */
const RESTORE_TIMEOUT_MS = 30_000;
/** A full rebuild of the index. */
const REBUILD_TARGET_SECONDS = 300;
/** Stories the reading-list reader has started (tools/seed `--reading`), and the list's target (issue 24). */
const STARTED_STORIES = 1000;
const READING_TARGET_MS = 20;

function withDatabase<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withSchema(databaseUrl, 'stories', fn);
}

async function publishedCount(databaseUrl: string): Promise<number> {
  return withDatabase(databaseUrl, async (client) => {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM stories WHERE published');
    return Number(rows[0]!.n);
  });
}

/**
 * Seeds the suite's stories (STORIES at `options.scale`) unless the database has them already,
 * and (re)builds the story search index when it does not hold exactly the published stories
 * (none yet, one of an older mapping, or stories seeded since); migrates every schema first, so an
 * empty database works.
 * The shelves and edge suites build on it.
 */
export async function prepareStories(databaseUrl: string, options: PrepareOptions): Promise<void> {
  migrateSchemas(databaseUrl);
  const want = scaled(STORIES, options.scale, 1000);
  const have = await publishedCount(databaseUrl);
  if (have < want) runSeed(databaseUrl, ['--stories', String(want - have), '--authors', String(scaled(AUTHORS, options.scale, 10))]);
  const published = await publishedCount(databaseUrl);
  const indexed = await indexedStories(databaseUrl);
  if (indexed === published) return;
  process.stderr.write(`    the story index holds ${indexed ?? 'no current'} stories of ${published}: rebuilding it (a few minutes for a million)\n`);
  const rebuild = await rebuildStoryIndex(databaseUrl, options.signal);
  process.stderr.write(`    ${rebuild.summary} (${rebuild.seconds.toFixed(0)} s)\n`);
}

/** A story list as the suite asks for it: the request's parameters, with the month as whole UTC days. */
interface StoryList {
  readonly ids?: readonly string[];
  readonly author?: string;
  readonly words?: WordRange;
  readonly status?: 'complete' | 'incomplete' | 'on-hiatus' | 'cancelled';
  readonly days?: readonly [string, string];
  readonly tags?: readonly string[];
  /** Tags the stories must not carry (`-g:3` in filter[tags]). */
  readonly excludedTags?: readonly string[];
  readonly ratings?: readonly ('everyone' | 'teen' | 'mature')[];
  readonly query?: string;
  readonly sort?: '-rating' | '-relevance';
  readonly facets?: boolean;
}

type WordRange = readonly [number | undefined, number | undefined];

/** The request path of `list` (docs/api/stories.md, "GET /stories"). */
function pathOf(list: StoryList): string {
  const parameters: string[] = [];
  if (list.ids) parameters.push(`filter[ids]=${list.ids.join(',')}`);
  if (list.author !== undefined) parameters.push(`filter[author]=${list.author}`);
  if (list.words) parameters.push(`filter[num_words]=${list.words[0] ?? ''},${list.words[1] ?? ''}`);
  if (list.status !== undefined) parameters.push(`filter[status]=${list.status}`);
  if (list.days) parameters.push(`filter[date_published]=${list.days[0]},${list.days[1]}`);
  if (list.tags || list.excludedTags) parameters.push(`filter[tags]=${[...(list.tags ?? []), ...(list.excludedTags ?? []).map((tag) => `-${tag}`)].join(',')}`);
  if (list.ratings) parameters.push(`filter[content_rating]=${list.ratings.join(',')}`);
  if (list.query !== undefined) parameters.push(`query=${encodeURIComponent(list.query)}`);
  if (list.sort !== undefined) parameters.push(`sort=${list.sort}`);
  if (list.facets) parameters.push('facets=tags');
  return parameters.length === 0 ? '/stories' : `/stories?${parameters.join('&')}`;
}

/** `list` as the stories service sends it to the search index (the gateway's reading of `pathOf(list)`). */
function searchOf(list: StoryList): StorySearch {
  return {
    ...(list.ids ? { ids: [...list.ids] } : {}),
    ...(list.author !== undefined ? { authorIds: [list.author] } : {}),
    ...(list.words?.[0] !== undefined ? { numWordsMin: list.words[0] } : {}),
    ...(list.words?.[1] !== undefined ? { numWordsMax: list.words[1] } : {}),
    ...(list.status !== undefined ? { status: list.status } : {}),
    ...(list.days ? { datePublishedMin: new Date(`${list.days[0]}T00:00:00.000Z`), datePublishedMax: new Date(`${list.days[1]}T23:59:59.999Z`) } : {}),
    ...(list.tags ? { tagIds: [...list.tags] } : {}),
    ...(list.excludedTags ? { excludedTagIds: [...list.excludedTags] } : {}),
    ...(list.ratings ? { contentRatings: [...list.ratings] } : {}),
    ...(list.query !== undefined ? { text: list.query } : {}),
    sort: list.sort === undefined ? { field: 'date_published', direction: 'desc' } : { field: list.sort.slice(1) as 'rating' | 'relevance', direction: 'desc' },
    ...(list.facets ? { facets: true } : {}),
  };
}

/**
 * Stories at a million published stories through the gateway with real tokens (issues 4 and 9):
 * by id (Postgres), and every list without a bookshelf, which OpenSearch answers: the default
 * browse and its page 200, each filter alone, two tags, a word range by rating, a tag's page 200,
 * relevance searches (the word in 72% of stories alone and with a tag, single words from common
 * to rare, two-word queries, phrases, exclusions and `or`, page 200), and tag facets with and
 * without a query. After the table: event-to-searchable under 50 title changes a second, and a
 * full rebuild of the index.
 */
export const storiesSuite: Suite = {
  name: 'stories',
  dataSet: `${STORIES.toLocaleString('en')} published stories (and 2% drafts) by ${AUTHORS.toLocaleString('en')} authors, about 3 chapters each (tools/seed)`,
  answeredByColumn: 'index used (Postgres) or engine time (OpenSearch)',
  // Everything a list request goes through (issue 29: at most 3 ms in all): users answers what a
  // signed-in reader hides (docs/api/safety.md) when the gateway does not hold it.
  cpuColumn: ['gateway', 'stories', 'users'],
  // Every request goes the whole way (gateway, stories service, OpenSearch, Postgres): the
  // gateway's caches (docs/api/foundation.md, "Caching at the edge") would answer the rows'
  // repeated requests themselves, and the node's request cache would answer repeated tag counts
  // (docs/api/stories.md, "Search"). The edge suite measures the gateway's caches.
  systemEnv: { PUBLIC_CACHE: 'false', STORY_TAG_COUNT_CACHE: 'false' },

  async prepare(databaseUrl, options) {
    await prepareStories(databaseUrl, options);
    await prepareReading(databaseUrl);
  },

  async scenarios(context: BenchContext): Promise<Scenario[]> {
    const db = context.databaseUrl;
    const sample = await withDatabase(db, async (client) => {
      const column = async (sql: string, values: unknown[] = []) => (await client.query<{ v: string }>(sql, values)).rows.map((row) => String(row.v));
      return {
        readers: await column('SELECT author_id AS v FROM stories GROUP BY author_id ORDER BY md5(author_id::text) LIMIT $1', [READERS]),
        ids: await column('SELECT id AS v FROM stories WHERE published ORDER BY md5(id::text) LIMIT $1', [VARIANTS * 20]),
        authors: await column('SELECT author_id AS v FROM stories WHERE published GROUP BY author_id ORDER BY md5(author_id::text) LIMIT $1', [VARIANTS]),
        tags: await column('SELECT id AS v FROM tags WHERE num_stories > 0 ORDER BY md5(id) LIMIT $1', [VARIANTS]),
        commonTag: await column('SELECT id AS v FROM tags ORDER BY num_stories DESC, id LIMIT 1'),
        genres: await column("SELECT id AS v FROM tags WHERE kind = 'genre' ORDER BY num_stories DESC LIMIT 10"),
        characters: await column("SELECT id AS v FROM tags WHERE kind = 'character' ORDER BY num_stories DESC LIMIT 20"),
      };
    });
    const tokens = await Promise.all(sample.readers.map((id) => context.mintToken(id, [])));
    const requests = (paths: readonly string[]): BenchRequest[] => paths.map((path, i) => ({ path, token: tokens[i % tokens.length]! }));

    const months = Array.from({ length: VARIANTS }, (_, i) => {
      const start = new Date(Date.UTC(2021, 0, 1));
      start.setUTCMonth(start.getUTCMonth() + i);
      const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0));
      return [start.toISOString().slice(0, 10), end.toISOString().slice(0, 10)] as const;
    });
    const wordRanges: WordRange[] = [[1000, 5000], [undefined, 2000], [10000, undefined], [5000, 20000]];
    const pairs = Array.from({ length: VARIANTS }, (_, i) => [sample.genres[i % sample.genres.length]!, sample.characters[i % sample.characters.length]!] as const);
    const statuses = ['complete', 'incomplete', 'on-hiatus', 'cancelled'] as const;
    const ratingSets: NonNullable<StoryList['ratings']>[] = [['everyone'], ['teen'], ['mature'], ['everyone', 'teen'], ['teen', 'mature']];
    const reading = await readingReader(db);
    const startedStories = reading.stories;
    const readingToken = await context.mintToken(reading.reader, ['read_bookshelves']);

    /** A row of lists: every list is requested in turn, and the same searches are timed at the engine. */
    const lists = (name: string, targetMs: number, variants: readonly StoryList[]): Scenario => ({
      name,
      targetMs,
      requests: requests(variants.map(pathOf)),
      answeredBy: engineTime(db, variants.map(searchOf)),
    });
    const deep = Math.max(2, Math.min(DEEP_PAGE, Math.round(DEEP_PAGE * context.scale)));
    /** A row of page `deep` of `list`, reached by following `links.next` (as 4 readers, each cursor reused). */
    const deepPage = async (name: string, targetMs: number, list: StoryList): Promise<Scenario> => ({
      name,
      targetMs,
      requests: await Promise.all(tokens.slice(0, 4).map((token) => pageByCursor(context, pathOf(list), token, deep))),
      answeredBy: engineTime(db, [{ ...searchOf(list), after: await positionAt(db, searchOf(list), (deep - 1) * 20 - 1) }]),
    });
    const quoted = (words: readonly string[]) => words.map((q) => `\`${q}\``).join(', ');
    const commonTag = sample.commonTag[0]!;

    return [
      {
        name: 'by id: `/stories/:id`',
        requests: requests(sample.ids.slice(0, VARIANTS * 2).map((id) => `/stories/${id}`)),
        answeredBy: async () => 'stories_pkey, story_texts_pkey, chapters_story_number_key',
      },
      lists('default browse: `/stories` (page 1, newest first)', LIST_TARGET_MS, [{}]),
      await deepPage(`default browse, page ${deep} (reached by following \`links.next\`)`, LIST_TARGET_MS, {}),
      lists('`filter[ids]` (20 ids)', LIST_TARGET_MS, Array.from({ length: VARIANTS }, (_, i) => ({ ids: sample.ids.slice(i * 20, i * 20 + 20) }))),
      lists('`filter[author]`', LIST_TARGET_MS, sample.authors.map((author) => ({ author }))),
      lists('`filter[num_words]` (ranges, open and closed)', LIST_TARGET_MS, wordRanges.map((words) => ({ words }))),
      lists('`filter[status]` (each status)', LIST_TARGET_MS, statuses.map((status) => ({ status }))),
      lists('`filter[date_published]` (one month, dates without time)', LIST_TARGET_MS, months.map((days) => ({ days }))),
      lists('`filter[tags]` (one tag, common to rare)', LIST_TARGET_MS, sample.tags.map((tag) => ({ tags: [tag] }))),
      lists('`filter[tags]` (two tags: a genre and a character, all of them)', LIST_TARGET_MS, pairs.map((pair) => ({ tags: pair }))),
      lists('`filter[num_words]` range, `sort=-rating`', LIST_TARGET_MS, wordRanges.map((words) => ({ words, sort: '-rating' }))),
      await deepPage(`\`filter[tags]\` of the most common tag (\`${commonTag}\`), page ${deep} (by \`links.next\`)`, LIST_TARGET_MS, { tags: [commonTag] }),
      lists(`search \`query=${BROAD_WORD}&sort=-relevance\` (the word is in 72% of stories)`, RELEVANCE_TARGET_MS, [{ query: BROAD_WORD, sort: '-relevance' }]),
      lists(`the same with \`filter[tags]\` (one tag, common to rare)`, RELEVANCE_TARGET_MS, sample.tags.map((tag) => ({ query: BROAD_WORD, tags: [tag], sort: '-relevance' }))),
      lists(`search \`sort=-relevance\`, one word, common to rare (${quoted(ONE_WORD_SEARCHES)})`, RELEVANCE_TARGET_MS, ONE_WORD_SEARCHES.map((query) => ({ query, sort: '-relevance' }))),
      lists(`… two words (${quoted(TWO_WORD_SEARCHES)})`, RELEVANCE_TARGET_MS, TWO_WORD_SEARCHES.map((query) => ({ query, sort: '-relevance' }))),
      lists(`… phrases, exclusions and \`or\` (${quoted(SYNTAX_SEARCHES)})`, RELEVANCE_TARGET_MS, SYNTAX_SEARCHES.map((query) => ({ query, sort: '-relevance' }))),
      await deepPage(`search \`query=${BROAD_WORD}&sort=-relevance\`, page ${deep} (by \`links.next\`)`, RELEVANCE_TARGET_MS, { query: BROAD_WORD, sort: '-relevance' }),
      lists('`filter[tags]` excluding one tag (`-<tag>`, common to rare)', LIST_TARGET_MS, sample.tags.map((tag) => ({ excludedTags: [tag] }))),
      lists('`filter[tags]` a genre required, a character excluded', LIST_TARGET_MS, pairs.map(([genre, character]) => ({ tags: [genre], excludedTags: [character] }))),
      lists(`\`filter[tags]\` excluding the most common tag (\`-${commonTag}\`), \`sort=-rating\``, LIST_TARGET_MS, [{ excludedTags: [commonTag], sort: '-rating' }]),
      lists('`filter[content_rating]` (each rating, and two of them)', LIST_TARGET_MS, ratingSets.map((ratings) => ({ ratings }))),
      lists('`filter[content_rating]` with a tag excluded and a word range', LIST_TARGET_MS, sample.tags.map((tag, i) => ({ ratings: ratingSets[i % ratingSets.length]!, excludedTags: [tag], words: wordRanges[i % wordRanges.length]! }))),
      lists(`\`facets=tags\` excluding the most common tag (\`-${commonTag}\`)`, FACETS_TARGET_MS, [{ excludedTags: [commonTag], facets: true }]),
      {
        name: `reading list: \`/users/me/reading\` (a reader with ${startedStories.toLocaleString('en')} started stories, page 1 and by \`links.next\`)`,
        targetMs: READING_TARGET_MS,
        requests: [{ path: '/users/me/reading', token: readingToken }, await pageByCursor(context, '/users/me/reading', readingToken, 5)],
        answeredBy: async () => 'reading_progress_recent_idx, chapter_reads_pkey, chapters_story_number_key',
      },
      lists('`facets=tags` without a query (every published story)', FACETS_TARGET_MS, [{ facets: true }]),
      lists(`\`facets=tags\` with \`query=${BROAD_WORD}&sort=-relevance\``, FACETS_TARGET_MS, [{ query: BROAD_WORD, sort: '-relevance', facets: true }]),
      lists(`\`facets=tags\` with one word, common to rare (${quoted(ONE_WORD_SEARCHES)})`, FACETS_TARGET_MS, ONE_WORD_SEARCHES.map((query) => ({ query, sort: '-relevance', facets: true }))),
    ];
  },

  async afterTable(context: BenchContext): Promise<string[]> {
    const lines = ['| measurement | result | target | load avg |', '|---|---|---|---|'];
    const loadNow = () => loadavg()[0]!.toFixed(1);

    const changes = await changeTargets(context);
    const reader = await context.mintToken(changes.readerId, []);
    process.stderr.write(`==> stories: event to searchable, ${changes.targets.length} title changes at ${CHANGES_PER_SECOND}/s\n`);
    try {
      // The write path warmed up (connections, compiled code) by writing the first titles unchanged.
      await restoreTitles(context, { ...changes, targets: changes.targets.slice(0, WARM_UP_WRITES) });
      const fresh = await measureFreshness({ apiUrl: context.system.apiUrl, targets: changes.targets, changesPerSecond: CHANGES_PER_SECOND, readerToken: reader, timeoutMs: FRESHNESS_TIMEOUT_MS });
      if (fresh.firstError !== undefined) process.stderr.write(`    first error: ${fresh.firstError}\n`);
      const p95 = fresh.p95Ms >= FRESHNESS_TARGET_MS ? `**${fresh.p95Ms} ms** (over)` : `${fresh.p95Ms} ms`;
      lines.push(
        `| event to searchable: a story's title changed through the gateway (\`PATCH /stories/:id\`, ${fresh.changes} stories, ${fresh.changesPerSecond} changes/s) until \`GET /stories?query=<new title>\` lists it | p50 ${fresh.p50Ms} ms, p95 ${p95}, p99 ${fresh.p99Ms} ms, max ${fresh.maxMs} ms; ${fresh.missed} missed; writes answered in p50 ${fresh.writeP50Ms} ms, p95 ${fresh.writeP95Ms} ms, ${fresh.failedWrites} failed; ${fresh.searches} searches (p50 ${fresh.searchP50Ms} ms) | p95 ≤ ${FRESHNESS_TARGET_MS} ms | ${loadNow()} |`,
      );
    } finally {
      await restoreTitles(context, changes);
    }

    process.stderr.write('==> stories: full rebuild of the story index\n');
    const rebuild = await rebuildStoryIndex(context.databaseUrl, context.signal);
    process.stderr.write(`    ${rebuild.summary}\n`);
    const seconds = Math.round(rebuild.seconds);
    const stories = (await indexedStories(context.databaseUrl)) ?? 0;
    lines.push(
      `| full rebuild of the story index (\`npm run search:rebuild\` while the system runs, ${stories.toLocaleString('en')} stories) | ${seconds >= REBUILD_TARGET_SECONDS ? `**${seconds} s** (over)` : `${seconds} s`} | ≤ ${REBUILD_TARGET_SECONDS} s | ${loadNow()} |`,
    );
    return lines;
  },
};

/**
 * Gives the reading-list row its reader (tools/seed `--reading`: the user with the lowest id) with
 * STARTED_STORIES started stories, unless that user has them already.
 */
async function prepareReading(databaseUrl: string): Promise<void> {
  const { stories } = await readingReader(databaseUrl);
  if (stories >= STARTED_STORIES) return;
  runSeed(databaseUrl, ['--stories', '0', '--reading', String(STARTED_STORIES)]);
}

/** The reader of the reading-list row (the user with the lowest id) and how many stories they have started. */
async function readingReader(databaseUrl: string): Promise<{ reader: string; stories: number }> {
  return withDatabase(databaseUrl, async (client) => {
    const { rows } = await client.query<{ reader: string; n: number }>(
      `SELECT u.id::text AS reader, (SELECT count(*)::int FROM reading_progress p WHERE p.user_id = u.id) AS n
         FROM users.users u ORDER BY u.id LIMIT 1`,
    );
    return { reader: rows[0]?.reader ?? '0', stories: rows[0]?.n ?? 0 };
  });
}

/** The stories whose titles the freshness measurement changes, tokens of their authors, their titles before, and a reader. */
interface ChangeSet {
  readonly targets: ChangeTarget[];
  readonly titles: ReadonlyMap<string, string>;
  readonly readerId: string;
}

/**
 * CHANGES published stories (at most 25 authors, the most prolific, up to 40 stories each), each
 * with a `write_stories` token of its author.
 */
async function changeTargets(context: BenchContext): Promise<ChangeSet> {
  const rows = await withDatabase(context.databaseUrl, async (client) =>
    (
      await client.query<{ id: string; author: string; title: string }>(
        `WITH authors AS (SELECT author_id FROM stories WHERE published GROUP BY author_id ORDER BY count(*) DESC, author_id LIMIT 25)
         SELECT id::text, author_id::text AS author, title FROM (
           SELECT s.id, s.author_id, s.title, row_number() OVER (PARTITION BY s.author_id ORDER BY s.id) AS n
           FROM stories s JOIN authors a USING (author_id) WHERE s.published
         ) ranked WHERE n <= 40 ORDER BY n, author_id LIMIT $1`,
        [CHANGES],
      )
    ).rows,
  );
  const authors = [...new Set(rows.map((row) => row.author))];
  const tokens = new Map(await Promise.all(authors.map(async (author) => [author, await context.mintToken(author, ['write_stories'])] as const)));
  return {
    targets: rows.map((row) => ({ storyId: row.id, token: tokens.get(row.author)! })),
    titles: new Map(rows.map((row) => [row.id, row.title])),
    readerId: authors[0]!,
  };
}

/**
 * Gives the changed stories their titles back through the API (one at a time, unmeasured, each
 * tried until answered 200 or RESTORE_TIMEOUT_MS pass), so the data set stays as seeded.
 */
async function restoreTitles(context: BenchContext, changes: ChangeSet): Promise<void> {
  for (const target of changes.targets) {
    const body = JSON.stringify({ data: { type: 'story', id: target.storyId, attributes: { title: changes.titles.get(target.storyId)! } } });
    await eventually(
      async () => {
        const response = await fetch(`${context.system.apiUrl}/stories/${target.storyId}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/vnd.api+json' },
          body,
        });
        await response.arrayBuffer();
        return response.status === 200;
      },
      { timeoutMs: RESTORE_TIMEOUT_MS, intervalMs: 500, what: `the title of story ${target.storyId} restored` },
    );
  }
}

import type pg from 'pg';
import { pageByCursor } from '../cursors.js';
import type { BenchRequest } from '../load.runner.js';
import { explainStoryPage, withSchema } from '../plans.js';
import { runSeed, scaled } from '../seed.runner.js';
import type { BenchContext, PrepareOptions, Scenario, Suite } from '../suite.js';
import { prepareStories } from './stories.suite.js';

/** Items on ordinary users' shelves (a few shelves each), besides the two special shelves. */
const ORDINARY_ITEMS = 900_000;
/** The big public shelf. */
const BIG_SHELF = 100_000;
/** The private shelf whose items pages are measured. */
const MEDIUM_SHELF = 1000;
/** Readers (users with a token of their own, no scope) that requests of public shelves rotate through. */
const READERS = 8;
/** The page of the big shelf reached by following cursors. */
const DEEP_PAGE = 50;
/** The later page of the medium shelf's items. */
const LATER_ITEMS_PAGE = 40;
/** A word in most stories (72%), and words in 0.1–1% of them (`sherlock` 0.8%, `dracula` 0.35%, `othello` 0.12%). */
const COMMON_WORD = 'heart';
const MID_WORDS = ['sherlock', 'dracula', 'othello'];
/** Targets: shelf-filtered story lists, and the shelves' own lists. */
const STORY_LIST_TARGET_MS = 50;
const SHELF_LIST_TARGET_MS = 20;

function withDatabase<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return withSchema(databaseUrl, 'bookshelves', fn);
}

interface Sizes {
  ordinary: number;
  big: number;
  medium: number;
}

const sizesAt = (scale: number): Sizes => ({ ordinary: scaled(ORDINARY_ITEMS, scale, 100), big: scaled(BIG_SHELF, scale, 100), medium: scaled(MEDIUM_SHELF, scale, 100) });

/**
 * The biggest public shelf and the biggest private one (the seed's big and medium shelves), each
 * looked for on its own: the database may hold other shelves (`npm run dev`, an earlier seed at
 * another --scale) of any size and privacy. Undefined while either is missing.
 */
export async function specialShelves(databaseUrl: string): Promise<{ big: SpecialShelf; medium: SpecialShelf } | undefined> {
  return withDatabase(databaseUrl, async (client) => {
    const biggest = async (privacy: 'public' | 'private') =>
      (await client.query<SpecialShelf>('SELECT id::text, owner_id::text AS owner, num_items AS items FROM bookshelves WHERE privacy = $1 ORDER BY num_items DESC, id DESC LIMIT 1', [privacy])).rows[0];
    const [big, medium] = [await biggest('public'), await biggest('private')];
    return big === undefined || medium === undefined ? undefined : { big, medium };
  });
}

/** A shelf the suite measures: its id, its owner and how many stories it holds. */
interface SpecialShelf {
  id: string;
  owner: string;
  items: number;
}

/**
 * Bookshelves at the stories suite's million stories: one public shelf of 100,000 stories, one
 * private shelf of 1,000, and 900,000 items on ordinary users' shelves (1–5 each), seeded with
 * COPY into the bookshelves schema and the stories service's copy (tools/seed --shelf-items).
 * Rows: the big shelf by date added alone (as a reader and as its owner), with a common, a
 * mid-frequency and a rare tag, with a common and mid-frequency words, and its page 50 by
 * cursors; a user's list of shelves; the first and a later page of the medium shelf's items.
 */
export const shelvesSuite: Suite = {
  name: 'shelves',
  dataSet: `the stories suite's ${(1_000_000).toLocaleString('en')} stories; one public shelf of ${BIG_SHELF.toLocaleString('en')} stories, one private shelf of ${MEDIUM_SHELF.toLocaleString('en')}, and ${ORDINARY_ITEMS.toLocaleString('en')} items on ordinary users' shelves (tools/seed)`,

  async prepare(databaseUrl: string, options: PrepareOptions) {
    await prepareStories(databaseUrl, options);
    const sizes = sizesAt(options.scale);
    const have = await specialShelves(databaseUrl);
    if (have && have.big.items >= sizes.big && have.medium.items >= sizes.medium) return;
    runSeed(databaseUrl, ['--stories', '0', '--shelf-items', String(sizes.ordinary), '--big-shelf', String(sizes.big), '--medium-shelf', String(sizes.medium)]);
  },

  async scenarios(context: BenchContext): Promise<Scenario[]> {
    const db = context.databaseUrl;
    const shelves = (await specialShelves(db)) ?? fail('the shelves suite found no seeded shelves');
    const big = shelves.big;
    const medium = shelves.medium;
    const sample = await withSchema(db, 'stories', async (client) => {
      const column = async (sql: string, values: unknown[] = []) => (await client.query<{ v: string }>(sql, values)).rows.map((row) => String(row.v));
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM stories WHERE published');
      const stories = Number(rows[0]!.n);
      return {
        readers: await column('SELECT author_id AS v FROM stories GROUP BY author_id ORDER BY md5(author_id::text) LIMIT $1', [READERS]),
        commonTags: await column('SELECT id AS v FROM tags ORDER BY num_stories DESC, id LIMIT 1'),
        // Tags in 0.1–1% of the stories (those nearest 0.3%): the case the planner used to walk thousands of items for.
        // Rounded: num_stories is an integer column, and any published-story count (3,000,003 after `npm run dev`) must work.
        midTags: await column('SELECT id AS v FROM tags WHERE num_stories > 0 ORDER BY abs(num_stories - $1), id LIMIT 6', [Math.round(stories * 0.003)]),
        rareTags: await column('SELECT id AS v FROM tags WHERE num_stories > 0 ORDER BY num_stories, id LIMIT 4'),
      };
    });
    // Owners of several shelves, each asking for their own list (private shelves included).
    const owners = await withDatabase(db, async (client) =>
      (await client.query<{ owner: string }>('SELECT owner_id::text AS owner FROM bookshelves GROUP BY owner_id HAVING count(*) >= 4 ORDER BY md5(owner_id::text) LIMIT 20')).rows.map((row) => row.owner),
    );
    const readerTokens = await Promise.all(sample.readers.map((id) => context.mintToken(id, [])));
    const ownerTokens = await Promise.all(owners.map(async (id) => ({ id, token: await context.mintToken(id, ['read_bookshelves']) })));
    const bigOwner = await context.mintToken(big.owner, ['read_bookshelves']);
    const mediumOwner = await context.mintToken(medium.owner, ['read_bookshelves']);

    const shelfPath = `/stories?filter[bookshelf]=${big.id}&sort=-date_added`;
    const asReaders = (paths: readonly string[]): BenchRequest[] =>
      Array.from({ length: Math.max(paths.length, readerTokens.length) }, (_, i) => ({ path: paths[i % paths.length]!, token: readerTokens[i % readerTokens.length]! }));
    const withTags = (tags: readonly string[]) => asReaders(tags.map((tag) => `${shelfPath}&filter[tags]=${tag}`));
    const withWords = (words: readonly string[]) => asReaders(words.map((word) => `${shelfPath}&query=${encodeURIComponent(word)}`));
    const shelf = { id: big.id, unreadOnly: false };
    const byDateAdded = { field: 'date_added', direction: 'desc' } as const;
    const explain = (extra: { tagIds?: string[]; text?: string } = {}) => explainStoryPage(db, { bookshelf: shelf, sort: byDateAdded, ...extra });

    const deepPage = Math.min(DEEP_PAGE, Math.floor(big.items / 20));
    const deep = await Promise.all(readerTokens.slice(0, 4).map((token) => pageByCursor(context, shelfPath, token, deepPage)));
    const deepPosition = await withSchema(db, 'stories', async (client) => {
      const { rows } = await client.query<{ key: string; id: string }>(
        'SELECT date_added::text AS key, id::text AS id FROM bookshelf_items WHERE bookshelf_id = $1 AND current AND published ORDER BY date_added DESC, id DESC OFFSET $2 LIMIT 1',
        [big.id, (deepPage - 1) * 20 - 1],
      );
      return rows[0] ?? fail('the big shelf has fewer stories than its deep page needs');
    });
    const itemsPath = `/bookshelves/${medium.id}/items`;
    const laterPage = Math.min(LATER_ITEMS_PAGE, Math.floor(medium.items / 20));
    const laterItems = await pageByCursor(context, itemsPath, mediumOwner, laterPage);
    const storyRow = (scenario: Omit<Scenario, 'targetMs'>): Scenario => ({ ...scenario, targetMs: STORY_LIST_TARGET_MS });
    const shelfRow = (scenario: Omit<Scenario, 'targetMs'>): Scenario => ({ ...scenario, targetMs: SHELF_LIST_TARGET_MS });
    const n = big.items.toLocaleString('en');
    const itemIndexes = async () => 'bookshelf_items_order_idx, bookshelves_pkey (index-only), known_stories_pkey';

    return [
      storyRow({ name: `\`/stories?filter[bookshelf]=<${n}-story public shelf>&sort=-date_added\` (${READERS} readers)`, requests: asReaders([shelfPath]), answeredBy: explain() }),
      storyRow({ name: 'the same, as the shelf\'s owner (`read_bookshelves`)', requests: [{ path: shelfPath, token: bigOwner }], answeredBy: explain() }),
      storyRow({
        name: `the same with \`filter[tags]\`: the most common tag (\`${sample.commonTags.join('')}\`)`,
        requests: withTags(sample.commonTags),
        answeredBy: explain({ tagIds: sample.commonTags }),
      }),
      storyRow({
        name: `… a tag in 0.1–1% of stories (${sample.midTags.map((tag) => `\`${tag}\``).join(', ')})`,
        requests: withTags(sample.midTags),
        answeredBy: explain({ tagIds: sample.midTags.slice(0, 1) }),
      }),
      storyRow({
        name: `… the rarest tags (${sample.rareTags.map((tag) => `\`${tag}\``).join(', ')})`,
        requests: withTags(sample.rareTags),
        answeredBy: explain({ tagIds: sample.rareTags.slice(0, 1) }),
      }),
      storyRow({ name: `the same with \`query=${COMMON_WORD}\` (in 72% of stories)`, requests: withWords([COMMON_WORD]), answeredBy: explain({ text: COMMON_WORD }) }),
      storyRow({
        name: `… \`query\` of a word in 0.1–1% of stories (${MID_WORDS.map((word) => `\`${word}\``).join(', ')})`,
        requests: withWords(MID_WORDS),
        answeredBy: explain({ text: MID_WORDS[0]! }),
      }),
      storyRow({
        name: `the shelf by date added, page ${deepPage} (reached by following \`links.next\`)`,
        requests: deep,
        answeredBy: explainStoryPage(db, { bookshelf: shelf, sort: byDateAdded, after: deepPosition }),
      }),
      shelfRow({
        name: `\`/users/:id/bookshelves\` of ${owners.length} users with 4–5 shelves, each as themselves`,
        requests: ownerTokens.map(({ id, token }) => ({ path: `/users/${id}/bookshelves`, token })),
        // The bookshelves service's statements (EXPLAIN ANALYZE on this data: under 0.1 ms and about 1 ms).
        answeredBy: async () => 'bookshelves_owner_idx',
      }),
      shelfRow({ name: `\`/bookshelves/:id/items\` of the ${medium.items.toLocaleString('en')}-item private shelf, first page (as its owner)`, requests: [{ path: itemsPath, token: mediumOwner }], answeredBy: itemIndexes }),
      shelfRow({ name: `the same, page ${laterPage} (reached by following \`links.next\`)`, requests: [laterItems], answeredBy: itemIndexes }),
    ];
  },
};

function fail(message: string): never {
  throw new Error(message);
}

import { dropSchemas, ensureDatabase, stackEnv } from '@inkwell/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentsLine, countContents } from './database-contents.js';
import { withSchema } from './plans.js';
import { migrateSchemas } from './seed.runner.js';
import { specialShelves } from './suites/shelves.suite.js';

/**
 * The suites on a benchmark database that holds more than their seed (issue 29, item 3): other
 * shelves of every size and privacy, as after `npm run dev` on it or an earlier seed at another
 * `--scale`. Real Postgres, the services' own migrations.
 */
let url: string;

beforeAll(async () => {
  url = await ensureDatabase(stackEnv().databaseUrl, 'inkwell_test_bench_real_data');
  await dropSchemas(url, ['users', 'stories', 'messaging', 'bookshelves']);
  migrateSchemas(url);
}, 180_000);

/** Adds a shelf of `items` stories (its count only: the suites read the counts) and returns its id. */
async function shelf(owner: number, privacy: 'public' | 'private', items: number): Promise<string> {
  return withSchema(url, 'bookshelves', async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO bookshelves (owner_id, name, privacy, color, position, num_items) VALUES ($1, 'Shelf', $2, '#336699', 1, $3) RETURNING id::text AS id`,
      [owner, privacy, items],
    );
    return rows[0]!.id;
  });
}

describe('benchmarks on a database holding more than their seed', () => {
  it("the shelves suite finds its big public and medium private shelves among others, an earlier seed's included", async () => {
    await shelf(1, 'private', 3);
    // An earlier seed at a smaller --scale: its big shelf is as big as today's medium one.
    await shelf(2, 'public', 40);
    await shelf(3, 'private', 10);
    const big = await shelf(4, 'public', 100);
    const medium = await shelf(5, 'private', 40);
    await shelf(6, 'public', 1);
    expect(await specialShelves(url)).toEqual({ big: { id: big, owner: '4', items: 100 }, medium: { id: medium, owner: '5', items: 40 } });
  });

  it('says what the database held, whoever put it there', async () => {
    const shelves = async () => (await countContents(url)).find((counted) => counted.label === 'bookshelves')?.count;
    const before = (await shelves()) ?? Number.NaN;
    await shelf(7, 'public', 2);
    expect(await shelves()).toBe(before + 1);
    expect(await countContents(url)).toContainEqual({ label: 'published stories', count: 0 });
    expect(contentsLine([{ label: 'published stories', count: 1_000_003 }, { label: 'draft stories', count: 0 }, { label: 'bookshelves', count: 7 }])).toBe(
      'Measured on the benchmark database as it was: 1,000,003 published stories, 7 bookshelves.',
    );
    expect(contentsLine([])).toBe('Measured on the benchmark database as it was: empty.');
  });
});

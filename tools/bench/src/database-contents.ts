import pg from 'pg';

/** One thing the benchmark database holds, counted for the report: a table of a service's schema, optionally filtered. */
interface Counted {
  readonly label: string;
  readonly table: string;
  readonly where?: string;
}

/** What every report says the database held: the main tables of each service (those the suites seed and read). */
const COUNTED: readonly Counted[] = [
  { label: 'published stories', table: 'stories.stories', where: 'published' },
  { label: 'draft stories', table: 'stories.stories', where: 'NOT published' },
  { label: 'chapters', table: 'stories.chapters' },
  { label: 'users', table: 'users.users' },
  { label: 'follows', table: 'users.follows' },
  { label: 'bookshelves', table: 'bookshelves.bookshelves' },
  { label: 'shelved stories', table: 'bookshelves.bookshelf_items' },
  { label: 'private messages', table: 'messaging.messages' },
  { label: 'notifications', table: 'messaging.notifications' },
];

/** How many rows of each counted table the database holds (missing tables left out), in COUNTED's order. */
export async function countContents(databaseUrl: string): Promise<Array<{ label: string; count: number }>> {
  const client = new pg.Client({ connectionString: databaseUrl, options: '-c jit=off' });
  await client.connect();
  try {
    const counts: Array<{ label: string; count: number }> = [];
    for (const { label, table, where } of COUNTED) {
      const { rows: exists } = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [table]);
      if (!exists[0]?.found) continue;
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}${where === undefined ? '' : ` WHERE ${where}`}`);
      counts.push({ label, count: Number(rows[0]!.n) });
    }
    return counts;
  } finally {
    await client.end();
  }
}

/**
 * The report's line saying what a suite measured on: everything the benchmark database held when
 * it ran, whoever seeded it (the suite's own data set, other suites' data, `npm run dev` on it), so
 * that a table is never read as measured on the suite's data set alone.
 */
export function contentsLine(counts: ReadonlyArray<{ label: string; count: number }>): string {
  const held = counts.filter(({ count }) => count > 0).map(({ label, count }) => `${count.toLocaleString('en')} ${label}`);
  return `Measured on the benchmark database as it was: ${held.length === 0 ? 'empty' : held.join(', ')}.`;
}

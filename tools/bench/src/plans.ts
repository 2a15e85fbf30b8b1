import pg from 'pg';
import { storyPageStatement, type StoryListQuery } from '@inkwell/stories';

/** Every index a plan (EXPLAIN FORMAT JSON) reads, in plan order, each once (`(index-only)` where it needs no heap). */
export function indexesOf(plan: unknown): string[] {
  const found: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    const name = node['Index Name'];
    if (typeof name === 'string') {
      const label = node['Node Type'] === 'Index Only Scan' ? `${name} (index-only)` : name;
      if (!found.includes(label)) found.push(label);
    }
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as [{ Plan: Record<string, unknown> }])[0].Plan);
  return found;
}

/** Runs `fn` with a client of the benchmark database whose search_path is `schema`. */
export async function withSchema<T>(databaseUrl: string, schema: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${schema} -c jit=off` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * The indexes of the page query the stories service runs for `query` (published stories, pages
 * of 20; the story rows are then read by primary key), for a row's "index used".
 */
export function explainStoryPage(databaseUrl: string, query: Omit<StoryListQuery, 'publication' | 'limit'>): () => Promise<string> {
  return () =>
    withSchema(databaseUrl, 'stories', async (client) => {
      const statement = storyPageStatement({ publication: 'published', limit: 20, ...query });
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
      return indexesOf(rows[0]!['QUERY PLAN']).join(', ');
    });
}

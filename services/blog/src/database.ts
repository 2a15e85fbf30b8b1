import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { eventsMigrations } from '@inkwell/events';
import type { Logger } from '@inkwell/logging';
import { createPool, migrate } from '@inkwell/pg';

/** The schema the blog service owns. */
export const BLOG_SCHEMA = 'blog';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Options of openBlogDatabase. */
export interface BlogDatabaseOptions {
  connectionString: string;
  logger: Logger;
  /** Pool size (default 10). */
  max?: number;
}

/**
 * A pool of the blog schema, migrated to the latest version (with the outbox tables). Used by
 * the service, the operator CLI and the tests, so all three see the same schema.
 */
export async function openBlogDatabase(options: BlogDatabaseOptions): Promise<pg.Pool> {
  const pool = createPool({ connectionString: options.connectionString, schema: BLOG_SCHEMA, max: options.max ?? 10, applicationName: 'inkwell-blog', logger: options.logger });
  try {
    await migrate(pool, { schema: BLOG_SCHEMA, directory: MIGRATIONS, extra: eventsMigrations, logger: options.logger });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}

import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { eventsMigrations } from '@inkwell/events';
import type { Logger } from '@inkwell/logging';
import { createPool, migrate, migrateSchema } from '@inkwell/pg';

/** The schema the blog service owns. */
export const BLOG_SCHEMA = 'blog';

const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Options of openBlogDatabase. */
export interface BlogDatabaseOptions {
  connectionString: string;
  /**
   * The schema owner's URL the migrations run with (DATABASE_MIGRATION_URL; docs/api/foundation.md,
   * "Stores and least privilege"); default: `connectionString` migrates too.
   */
  migrationConnectionString?: string | undefined;
  logger: Logger;
  /** Pool size (default 10). */
  max?: number;
}

/**
 * A pool of the blog schema, migrated to the latest version (with the outbox tables), by the
 * owner's own connection when `migrationConnectionString` is given. Used by
 * the service, the operator CLI and the tests, so all three see the same schema.
 */
export async function openBlogDatabase(options: BlogDatabaseOptions): Promise<pg.Pool> {
  const migrations = { schema: BLOG_SCHEMA, directory: MIGRATIONS, extra: eventsMigrations, logger: options.logger };
  if (options.migrationConnectionString !== undefined) await migrateSchema(options.migrationConnectionString, { ...migrations, applicationName: 'inkwell-blog-migrate' });
  const pool = createPool({ connectionString: options.connectionString, schema: BLOG_SCHEMA, max: options.max ?? 10, applicationName: 'inkwell-blog', logger: options.logger });
  if (options.migrationConnectionString !== undefined) return pool;
  try {
    await migrate(pool, migrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}

import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { eventsMigrations } from '@inkwell/events';
import type { Logger } from '@inkwell/logging';
import { createPool, migrate, migrateSchema } from '@inkwell/pg';

/** The schema the bookshelves service owns. */
export const BOOKSHELVES_SCHEMA = 'bookshelves';

/** The folder of its numbered migrations. */
export const BOOKSHELVES_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Options of openBookshelvesDatabase. */
export interface BookshelvesDatabaseOptions {
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
 * A pool of the bookshelves schema, migrated to the latest version (with the outbox tables), by the
 * owner's own connection when `migrationConnectionString` is given.
 * Used by the service and the tests, so both see the same schema.
 */
export async function openBookshelvesDatabase(options: BookshelvesDatabaseOptions): Promise<pg.Pool> {
  const migrations = { schema: BOOKSHELVES_SCHEMA, directory: BOOKSHELVES_MIGRATIONS, extra: eventsMigrations, logger: options.logger };
  if (options.migrationConnectionString !== undefined) await migrateSchema(options.migrationConnectionString, { ...migrations, applicationName: 'inkwell-bookshelves-migrate' });
  const pool = createPool({ connectionString: options.connectionString, schema: BOOKSHELVES_SCHEMA, max: options.max ?? 10, applicationName: 'inkwell-bookshelves', logger: options.logger });
  if (options.migrationConnectionString !== undefined) return pool;
  try {
    await migrate(pool, migrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}

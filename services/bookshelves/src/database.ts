import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { eventsMigrations } from '@inkwell/events';
import type { Logger } from '@inkwell/logging';
import { createPool, migrate } from '@inkwell/pg';

/** The schema the bookshelves service owns. */
export const BOOKSHELVES_SCHEMA = 'bookshelves';

/** The folder of its numbered migrations. */
export const BOOKSHELVES_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Options of openBookshelvesDatabase. */
export interface BookshelvesDatabaseOptions {
  connectionString: string;
  logger: Logger;
  /** Pool size (default 10). */
  max?: number;
}

/**
 * A pool of the bookshelves schema, migrated to the latest version (with the outbox tables).
 * Used by the service and the tests, so both see the same schema.
 */
export async function openBookshelvesDatabase(options: BookshelvesDatabaseOptions): Promise<pg.Pool> {
  const pool = createPool({ connectionString: options.connectionString, schema: BOOKSHELVES_SCHEMA, max: options.max ?? 10, applicationName: 'inkwell-bookshelves', logger: options.logger });
  try {
    await migrate(pool, { schema: BOOKSHELVES_SCHEMA, directory: BOOKSHELVES_MIGRATIONS, extra: eventsMigrations, logger: options.logger });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}

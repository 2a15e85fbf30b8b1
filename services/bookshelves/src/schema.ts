import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { openServiceDatabase, type ServiceDatabaseOptions } from '@inkwell/events';

/** The schema the bookshelves service owns. */
export const BOOKSHELVES_SCHEMA = 'bookshelves';

/** The folder of its numbered migrations. */
export const BOOKSHELVES_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Options of openBookshelvesDatabase: the connection settings of {@link openServiceDatabase}. */
export type BookshelvesDatabaseOptions = Omit<ServiceDatabaseOptions, 'service' | 'schema' | 'migrations'>;

/** A pool of the bookshelves schema, migrated to the latest version (with the outbox tables); used by the tests and other workspaces. */
export function openBookshelvesDatabase(options: BookshelvesDatabaseOptions): Promise<pg.Pool> {
  return openServiceDatabase({ ...options, service: 'bookshelves', schema: BOOKSHELVES_SCHEMA, migrations: BOOKSHELVES_MIGRATIONS });
}

import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { openServiceDatabase, type ServiceDatabaseOptions } from '@inkwell/events';

/** The schema the blog service owns. */
export const BLOG_SCHEMA = 'blog';

/** The folder of its numbered migrations. */
export const BLOG_MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Options of openBlogDatabase: the connection settings of {@link openServiceDatabase}. */
export type BlogDatabaseOptions = Omit<ServiceDatabaseOptions, 'service' | 'schema' | 'migrations'>;

/** A pool of the blog schema, migrated to the latest version (with the outbox tables); used by the operator CLI and the tests. */
export function openBlogDatabase(options: BlogDatabaseOptions): Promise<pg.Pool> {
  return openServiceDatabase({ ...options, service: 'blog', schema: BLOG_SCHEMA, migrations: BLOG_MIGRATIONS });
}

import type pg from 'pg';
import type { Logger } from '@inkwell/logging';
import { createPool, migrate, migrateSchema, type PoolOptions } from '@inkwell/pg';
import { eventsMigrations } from './outbox.migration.js';

/** Options of {@link openServiceDatabase}. */
export interface ServiceDatabaseOptions {
  /** The service's name, for connection application names (`inkwell-<service>`). */
  service: string;
  /** The schema the service owns. */
  schema: string;
  /** The folder of its numbered migrations. */
  migrations: string;
  connectionString: string;
  /**
   * The schema owner's URL the migrations run with (DATABASE_MIGRATION_URL; docs/api/foundation.md,
   * "Stores and least privilege"); default: `connectionString` migrates too.
   */
  migrationConnectionString?: string | undefined;
  logger: Logger;
  /** Pool size (default 10). */
  max?: number;
  /** Session settings of every pooled connection (see createPool of @inkwell/pg). */
  settings?: PoolOptions['settings'];
}

/**
 * A pool of a service's schema, migrated to the latest version together with the outbox tables,
 * by the owner's own short-lived connection when `migrationConnectionString` is given. Services,
 * their CLIs and their tests open their database through it, so all see the same schema.
 */
export async function openServiceDatabase(options: ServiceDatabaseOptions): Promise<pg.Pool> {
  const migrations = { schema: options.schema, directory: options.migrations, extra: eventsMigrations, logger: options.logger };
  if (options.migrationConnectionString !== undefined) {
    await migrateSchema(options.migrationConnectionString, { ...migrations, applicationName: `inkwell-${options.service}-migrate` });
  }
  const pool = createPool({ connectionString: options.connectionString, schema: options.schema, max: options.max ?? 10, applicationName: `inkwell-${options.service}`, logger: options.logger, ...(options.settings ? { settings: options.settings } : {}) });
  if (options.migrationConnectionString !== undefined) return pool;
  try {
    await migrate(pool, migrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}

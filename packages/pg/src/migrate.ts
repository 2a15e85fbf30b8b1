import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { quoteIdentifier } from './identifier.js';
import { stderrLogger, type PgLogger } from './logger.js';
import { createPool } from './pool.js';

/**
 * One forward-only migration. `version` is its primary key in `schema_migrations` and must never
 * change once applied; `sql` may hold several statements and runs in one transaction.
 */
export interface Migration {
  version: string;
  name: string;
  sql: string;
}

/** Options of `migrate`. */
export interface MigrateOptions {
  /** The service's schema; created if missing. */
  schema: string;
  /**
   * Folder of numbered files `0001_name.sql`, applied in numeric order. Other files are ignored;
   * a `.sql` file not following the pattern, or two files with one number, is an error.
   */
  directory?: string;
  /**
   * Migrations shipped in code by shared packages (e.g. the outbox tables of @inkwell/events),
   * applied before the directory's, in the given order. Give them namespaced versions
   * (`events_0001`) so they never collide with the service's numbered files.
   */
  extra?: readonly Migration[];
  logger?: PgLogger;
}

/** Thrown when an applied migration's SQL has changed since; the service must not start. */
export class MigrationChecksumError extends Error {
  override readonly name = 'MigrationChecksumError';
}

const FILE_PATTERN = /^(\d+)_([A-Za-z0-9_-]+)\.sql$/;

/**
 * Brings the service's schema up to date: creates the schema and its `schema_migrations` table if
 * missing, then applies every migration not yet recorded, each in its own transaction together
 * with its `schema_migrations` row, with `search_path` set to the schema (so migrations use
 * unqualified names). A failing migration is rolled back, leaves no row, and is rethrown naming
 * the file; the ones before it stay applied.
 *
 * Replicas starting together are serialised by a Postgres advisory lock keyed on the schema name:
 * the second waits, then finds nothing pending. Before applying anything, every already-applied
 * migration's checksum is compared with its current SQL; a difference throws
 * MigrationChecksumError naming the migration. A recorded version with no migration any more
 * (e.g. an older release rolled back in) is only logged.
 *
 * Returns the ids (`0001_name`) of the migrations this call applied, in order.
 */
export async function migrate(pool: pg.Pool, options: MigrateOptions): Promise<{ applied: string[] }> {
  const schema = quoteIdentifier(options.schema);
  const logger = options.logger ?? stderrLogger;
  const migrations = [...(options.extra ?? []), ...(options.directory ? await readMigrationDirectory(options.directory) : [])];
  assertUniqueVersions(migrations);

  const client = await pool.connect();
  const lockKey = advisoryLockKey(`inkwell.migrate:${options.schema}`);
  // A connection whose state is unknown (an error mid-way, a failed unlock) is discarded rather
  // than returned to the pool, which also frees the session-level advisory lock.
  let discard: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [lockKey]);
    try {
      // Created only when missing: a migrator role owns its schema but may not create schemas
      // (docs/api/foundation.md, "Stores and least privilege").
      const { rowCount: exists } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema]);
      if (!exists) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      // Likewise the bookkeeping table: a role that may only read the schema (the runtime role of
      // an up-to-date database, e.g. an operator command) gets through when nothing is pending.
      const { rows: table } = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [`${schema}.schema_migrations`]);
      if (table[0]?.found == null) {
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
             version text PRIMARY KEY,
             name text NOT NULL,
             checksum text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
           )`,
        );
      }
      const { rows } = await client.query<{ version: string; checksum: string }>(`SELECT version, checksum FROM ${schema}.schema_migrations`);
      const appliedChecksums = new Map(rows.map((row) => [row.version, row.checksum]));

      const known = new Set(migrations.map((migration) => migration.version));
      for (const version of appliedChecksums.keys()) {
        if (!known.has(version)) logger.warn({ schema: options.schema, version }, 'applied migration is unknown to this release');
      }
      for (const migration of migrations) {
        const applied = appliedChecksums.get(migration.version);
        if (applied !== undefined && applied !== checksum(migration.sql)) {
          throw new MigrationChecksumError(
            `Migration ${migrationId(migration)} of schema ${options.schema} was changed after it was applied; ` +
              'migrations are forward-only: restore the file and add a new one instead.',
          );
        }
      }

      const applied: string[] = [];
      for (const migration of migrations) {
        if (appliedChecksums.has(migration.version)) continue;
        await applyOne(client, schema, migration);
        applied.push(migrationId(migration));
        logger.info({ schema: options.schema, migration: migrationId(migration) }, 'migration applied');
      }
      return { applied };
    } finally {
      try {
        await client.query('SELECT pg_advisory_unlock($1::bigint)', [lockKey]);
      } catch (error) {
        discard = error instanceof Error ? error : new Error(String(error));
      }
    }
  } catch (error) {
    discard ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(discard);
  }
}

async function applyOne(client: pg.PoolClient, schema: string, migration: Migration): Promise<void> {
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL search_path TO ${schema}`);
    await client.query(migration.sql);
    await client.query(`INSERT INTO ${schema}.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, [
      migration.version,
      migration.name,
      checksum(migration.sql),
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Migration ${migrationId(migration)} failed and was rolled back: ${reason}`, { cause: error });
  }
}

/**
 * Reads `NNNN_name.sql` files of a folder, sorted by their number. Exported for tools that want
 * to list migrations without applying them.
 */
export async function readMigrationDirectory(directory: string): Promise<Migration[]> {
  const entries = await readdir(directory);
  const migrations: Array<Migration & { number: number }> = [];
  for (const entry of entries) {
    if (!entry.endsWith('.sql')) continue;
    const match = FILE_PATTERN.exec(entry);
    if (!match) throw new Error(`Migration file ${entry} in ${directory} must be named NNNN_name.sql`);
    const [, version = '', name = ''] = match;
    const sql = await readFile(path.join(directory, entry), 'utf8');
    migrations.push({ version, name, sql, number: Number(version) });
  }
  migrations.sort((a, b) => a.number - b.number);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.number === migrations[i - 1]?.number) {
      throw new Error(`Two migrations in ${directory} share the number ${migrations[i]?.version}`);
    }
  }
  return migrations.map(({ version, name, sql }) => ({ version, name, sql }));
}

function assertUniqueVersions(migrations: readonly Migration[]): void {
  const seen = new Set<string>();
  for (const migration of migrations) {
    if (seen.has(migration.version)) throw new Error(`Two migrations share the version ${migration.version}`);
    seen.add(migration.version);
  }
}

function migrationId(migration: Migration): string {
  return `${migration.version}_${migration.name}`;
}

/** Line endings are normalised so a checkout with CRLF does not look like an edited migration. */
function checksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/** A stable signed 64-bit key for `pg_advisory_lock`, derived from a name (passed as text). */
export function advisoryLockKey(name: string): string {
  const digest = createHash('sha256').update(name).digest();
  return digest.readBigInt64BE(0).toString();
}

/** Options of {@link migrateSchema}. */
export interface MigrateSchemaOptions extends MigrateOptions {
  /** Shown in `pg_stat_activity.application_name`. */
  applicationName?: string;
}

/**
 * Runs `migrate` over a connection of its own to `connectionString` (the migration role's URL,
 * DATABASE_MIGRATION_URL, or DATABASE_URL where one role does everything) and closes it, so the
 * owner's credentials are not kept open by the process after start.
 */
export async function migrateSchema(connectionString: string, options: MigrateSchemaOptions): Promise<{ applied: string[] }> {
  const pool = createPool({ connectionString, schema: options.schema, max: 1, ...(options.applicationName === undefined ? {} : { applicationName: options.applicationName }), ...(options.logger === undefined ? {} : { logger: options.logger }) });
  try {
    return await migrate(pool, options);
  } finally {
    await pool.end();
  }
}

export { createPool, checkPool, type PoolOptions, type Queryable } from './pool.js';
export { withTransaction } from './transaction.js';
export { migrate, readMigrationDirectory, advisoryLockKey, MigrationChecksumError, type Migration, type MigrateOptions } from './migrate.js';
export { translatePgError, constraintName } from './pg-error.js';
export { assertIdentifier, quoteIdentifier } from './identifier.js';
export type { PgLogger } from './logger.js';

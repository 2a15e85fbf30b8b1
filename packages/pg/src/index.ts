export { createPool, checkPool, type PoolOptions, type Queryable } from './pool.js';
export { withTransaction, type TransactionOptions } from './transaction.js';
export { migrate, migrateSchema, readMigrationDirectory, advisoryLockKey, MigrationChecksumError, type Migration, type MigrateOptions, type MigrateSchemaOptions } from './migrate.js';
export { translatePgError, constraintName, withPgErrors } from './pg-error.js';
export { assertIdentifier, quoteIdentifier } from './identifier.js';
export { ChannelListener, type ChannelListenerOptions } from './channel-listener.js';
export type { PgLogger } from './logger.js';
export { provisionSchemaRoles, schemaRoles, type ProvisionOptions, type SchemaRoles } from './roles.js';
export { budgetedPage, budgetedPageSql, type BudgetedPageShape, type BudgetedRow } from './budgeted-page.js';

import type pg from 'pg';
import { assertIdentifier, quoteIdentifier } from './identifier.js';

/** The two Postgres roles of one service schema (docs/api/foundation.md, "Stores and least privilege"). */
export interface SchemaRoles {
  /** What the service process connects as (DATABASE_URL): reads and writes rows of its schema only. */
  runtime: string;
  /** Owner of the schema and every object in it (DATABASE_MIGRATION_URL): runs migrations, seeds and CLIs. */
  migrator: string;
}

/** The role names of `schema`: `inkwell_<schema>` and `inkwell_<schema>_migrator` (roles are cluster-wide). */
export function schemaRoles(schema: string): SchemaRoles {
  assertIdentifier(schema, 'schema name');
  return { runtime: `inkwell_${schema}`, migrator: `inkwell_${schema}_migrator` };
}

/** Options of {@link provisionSchemaRoles}. */
export interface ProvisionOptions {
  schema: string;
  /** Login passwords to set (again) on each run; omit a role's to leave its password as it is. */
  passwords?: Partial<Record<keyof SchemaRoles, string>>;
  /** Extensions the schema's migrations use, created in the schema by the (superuser) caller. */
  extensions?: readonly string[];
}

/** Privileges of the runtime role on tables and sequences, now and on every object the migrator creates later. */
const TABLE_PRIVILEGES = 'SELECT, INSERT, UPDATE, DELETE';
const SEQUENCE_PRIVILEGES = 'USAGE, SELECT';

/**
 * Creates, idempotently, the roles of one service schema in the database `admin` is connected
 * to, as a superuser (or a role with CREATEROLE that owns the database): the migrator role owns
 * the schema (created if missing; objects already in it are handed over to it), the runtime role
 * gets USAGE on the schema, SELECT/INSERT/UPDATE/DELETE on its tables and USAGE/SELECT on its
 * sequences, and the same on everything the migrator creates later (ALTER DEFAULT PRIVILEGES).
 * Neither role can reach another schema: nothing is granted on them (a schema's owner grants
 * nothing to PUBLIC). Safe to run concurrently from several processes, also against different
 * databases of one cluster (roles are cluster-wide; grants are per database).
 */
export async function provisionSchemaRoles(admin: pg.Client | pg.PoolClient, options: ProvisionOptions): Promise<SchemaRoles> {
  const roles = schemaRoles(options.schema);
  const schema = quoteIdentifier(options.schema);
  const runtime = quoteIdentifier(roles.runtime);
  const migrator = quoteIdentifier(roles.migrator);
  for (const role of [roles.runtime, roles.migrator]) await createRole(admin, role);
  for (const [key, role] of Object.entries(roles) as [keyof SchemaRoles, string][]) {
    const password = options.passwords?.[key];
    if (password === undefined) continue;
    const { rows } = await admin.query<{ sql: string }>('SELECT format($1::text, $2::text, $3::text) AS sql', ['ALTER ROLE %I LOGIN PASSWORD %L', role, password]);
    await retryConcurrentUpdate(() => admin.query((rows[0] as { sql: string }).sql));
  }

  await admin.query('BEGIN');
  try {
    // Serialises provisioning within the database: GRANT … ON DATABASE rewrites one catalog row.
    await admin.query("SELECT pg_advisory_xact_lock(hashtextextended('inkwell.provision', 0))");
    const { rows: database } = await admin.query<{ name: string }>('SELECT current_database() AS name');
    const databaseName = quoteIdentifier((database[0] as { name: string }).name);
    await admin.query(`GRANT CONNECT ON DATABASE ${databaseName} TO ${runtime}, ${migrator}`);
    await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema} AUTHORIZATION ${migrator}`);
    await admin.query(`ALTER SCHEMA ${schema} OWNER TO ${migrator}`);
    for (const extension of options.extensions ?? []) await admin.query(`CREATE EXTENSION IF NOT EXISTS ${quoteIdentifier(extension)} WITH SCHEMA ${schema}`);
    await handOver(admin, options.schema, roles.migrator);
    await admin.query(`REVOKE ALL ON SCHEMA ${schema} FROM PUBLIC`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${runtime}`);
    await admin.query(`GRANT ${TABLE_PRIVILEGES} ON ALL TABLES IN SCHEMA ${schema} TO ${runtime}`);
    await admin.query(`GRANT ${SEQUENCE_PRIVILEGES} ON ALL SEQUENCES IN SCHEMA ${schema} TO ${runtime}`);
    await admin.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${migrator} IN SCHEMA ${schema} GRANT ${TABLE_PRIVILEGES} ON TABLES TO ${runtime}`);
    await admin.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${migrator} IN SCHEMA ${schema} GRANT ${SEQUENCE_PRIVILEGES} ON SEQUENCES TO ${runtime}`);
    await admin.query('COMMIT');
  } catch (error) {
    await admin.query('ROLLBACK').catch(() => {});
    throw error;
  }
  return roles;
}

/**
 * Runs `statement` again (up to 5 times) when Postgres reports that another session changed the
 * same catalog row at once ("tuple concurrently updated", XX000): roles are shared by every
 * database of the cluster, so systems provisioning different databases may alter one role together.
 */
async function retryConcurrentUpdate(statement: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await statement();
      return;
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      if (attempt >= 5 || code !== 'XX000' || !message?.includes('concurrently')) throw error;
    }
  }
}

/** CREATE ROLE … LOGIN unless it exists; another session creating it at the same moment is fine. */
async function createRole(admin: pg.Client | pg.PoolClient, role: string): Promise<void> {
  const { rowCount } = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (rowCount) return;
  await admin.query(`CREATE ROLE ${quoteIdentifier(role)} LOGIN`).catch((error: { code?: string }) => {
    // 42710 duplicate_object, 23505 unique_violation: created concurrently.
    if (error.code !== '42710' && error.code !== '23505') throw error;
  });
}

/**
 * Makes `owner` the owner of every table, view, independent sequence, function and type already
 * in the schema (a database migrated before the roles existed), so later migrations can alter them.
 * Sequences owned by a column and the row types of tables follow their table.
 */
async function handOver(admin: pg.Client | pg.PoolClient, schema: string, owner: string): Promise<void> {
  const { rows } = await admin.query<{ sql: string }>(
    `SELECT format('ALTER %s %s OWNER TO %I', kind, object, $2::text) AS sql FROM (
       SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END AS kind,
              c.oid::regclass::text AS object, c.relowner AS owner
       FROM pg_class c
       WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
       UNION ALL
       SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END, p.oid::regprocedure::text, p.proowner
       FROM pg_proc p
       WHERE p.pronamespace = $1::regnamespace
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
       UNION ALL
       SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype::text, t.typowner
       FROM pg_type t
       WHERE t.typnamespace = $1::regnamespace AND t.typtype IN ('e', 'd', 'r') AND t.typisdefined
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
     ) objects WHERE owner <> $2::regrole`,
    [schema, owner],
  );
  for (const row of rows) await admin.query(row.sql);
}

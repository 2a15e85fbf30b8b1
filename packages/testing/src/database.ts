import pg from 'pg';
import { provisionSchemaRoles } from '@inkwell/pg';

/**
 * Creates (once) a database named `name` next to the one in `baseUrl` and returns its URL, so a
 * test file can own its data completely. Safe when several processes race to create it.
 */
export async function ensureDatabase(baseUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`invalid database name ${name}`);
  const admin = new pg.Client({ connectionString: withDatabase(baseUrl, 'postgres') });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await admin.query(`CREATE DATABASE ${name}`).catch((error: { code?: string }) => {
        // 42P04 duplicate_database, 23505 unique violation: another process created it first.
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await admin.end();
  }
  return withDatabase(baseUrl, name);
}

/** Drops the schemas of a test database so the next run starts empty. */
export async function dropSchemas(url: string, schemas: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of schemas) {
      if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  } finally {
    await client.end();
  }
}

/** `url` with its database path replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * The login password the local stack gives every service role. Local Postgres trusts loopback
 * connections and ignores it; a stack that checks passwords (testcontainers) needs one.
 */
export const LOCAL_ROLE_PASSWORD = 'inkwell-local';

/** A service's two database URLs (docs/api/foundation.md, "Stores and least privilege"). */
export interface ServiceDatabaseUrls {
  /** The runtime role `inkwell_<schema>`: rows of its own schema only. */
  DATABASE_URL: string;
  /** The owner role `inkwell_<schema>_migrator`, for the migrations at start. */
  DATABASE_MIGRATION_URL: string;
}

/**
 * Creates (idempotently) the runtime and migrator roles of every schema in the database of
 * `adminUrl` (a superuser's URL, e.g. the stack's DATABASE_URL) with @inkwell/pg
 * `provisionSchemaRoles`, and returns each schema's URLs signed in as its roles.
 */
export async function provisionServiceRoles(adminUrl: string, schemas: ReadonlyArray<{ schema: string; extensions?: readonly string[] }>): Promise<Record<string, ServiceDatabaseUrls>> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const urls: Record<string, ServiceDatabaseUrls> = {};
  try {
    for (const { schema, extensions } of schemas) {
      const roles = await provisionSchemaRoles(admin, { schema, extensions: extensions ?? [], passwords: { runtime: LOCAL_ROLE_PASSWORD, migrator: LOCAL_ROLE_PASSWORD } });
      urls[schema] = { DATABASE_URL: withRole(adminUrl, roles.runtime), DATABASE_MIGRATION_URL: withRole(adminUrl, roles.migrator) };
    }
  } finally {
    await admin.end();
  }
  return urls;
}

function withRole(url: string, role: string): string {
  const parsed = new URL(url);
  parsed.username = role;
  parsed.password = LOCAL_ROLE_PASSWORD;
  return parsed.toString();
}

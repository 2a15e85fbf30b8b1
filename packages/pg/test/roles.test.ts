import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, migrateSchema, provisionSchemaRoles, schemaRoles } from '../src/index.js';
import { databaseUrl, dropSchemas, migrationDir, silentLogger, uniqueSchema } from './support.js';

const mine = uniqueSchema('roles');
const theirs = uniqueSchema('roles');
const pools: pg.Pool[] = [];

/** `databaseUrl` signed in as `role` with `password`. */
function urlAs(role: string, password: string): string {
  const url = new URL(databaseUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}

function poolAs(role: string, schema: string): pg.Pool {
  const pool = createPool({ connectionString: urlAs(role, 'roles-test'), schema, max: 2, logger: silentLogger });
  pools.push(pool);
  return pool;
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

beforeAll(async () => {
  const passwords = { runtime: 'roles-test', migrator: 'roles-test' };
  await withAdmin(async (admin) => {
    for (const schema of [mine, theirs]) await provisionSchemaRoles(admin, { schema, passwords });
    // Idempotent: a second run changes nothing and fails on nothing.
    await provisionSchemaRoles(admin, { schema: mine, passwords });
  });
  const directory = await migrationDir({ '0001_notes.sql': 'CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL);' });
  for (const schema of [mine, theirs]) await migrateSchema(urlAs(schemaRoles(schema).migrator, 'roles-test'), { schema, directory, logger: silentLogger });
});

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await dropSchemas(mine, theirs);
  await withAdmin(async (admin) => {
    for (const schema of [mine, theirs]) {
      const roles = schemaRoles(schema);
      for (const role of [roles.runtime, roles.migrator]) {
        await admin.query(`DROP OWNED BY "${role}"`);
        await admin.query(`DROP ROLE "${role}"`);
      }
    }
  });
});

describe('provisionSchemaRoles', () => {
  it('lets the runtime role read and write the tables its migrator created later', async () => {
    const pool = poolAs(schemaRoles(mine).runtime, mine);
    await pool.query("INSERT INTO notes (body) VALUES ('hello')");
    await pool.query("UPDATE notes SET body = 'hello again'");
    const { rows } = await pool.query<{ body: string }>('SELECT body FROM notes');
    expect(rows).toEqual([{ body: 'hello again' }]);
  });

  it("refuses the runtime role another service's tables: permission denied", async () => {
    const pool = poolAs(schemaRoles(mine).runtime, mine);
    await expect(pool.query(`SELECT * FROM "${theirs}".notes`)).rejects.toMatchObject({ code: '42501', message: expect.stringContaining('permission denied') });
    await expect(pool.query(`INSERT INTO "${theirs}".notes (body) VALUES ('x')`)).rejects.toMatchObject({ code: '42501' });
  });

  it('refuses the runtime role any change to the schema, and the migrator another schema', async () => {
    await expect(poolAs(schemaRoles(mine).runtime, mine).query('CREATE TABLE sneaky (id int)')).rejects.toMatchObject({ code: '42501' });
    await expect(poolAs(schemaRoles(mine).runtime, mine).query('DROP TABLE notes')).rejects.toMatchObject({ code: '42501' });
    await expect(poolAs(schemaRoles(mine).migrator, mine).query(`SELECT * FROM "${theirs}".notes`)).rejects.toMatchObject({ code: '42501' });
  });

  it('lets the runtime role check an up-to-date schema, and refuses it a pending migration', async () => {
    const runtime = urlAs(schemaRoles(mine).runtime, 'roles-test');
    const current = await migrationDir({ '0001_notes.sql': 'CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL);' });
    await expect(migrateSchema(runtime, { schema: mine, directory: current, logger: silentLogger })).resolves.toEqual({ applied: [] });
    const next = await migrationDir({ '0001_notes.sql': 'CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL);', '0002_more.sql': 'CREATE TABLE more (id int);' });
    await expect(migrateSchema(runtime, { schema: mine, directory: next, logger: silentLogger })).rejects.toThrow(/0002_more failed and was rolled back: permission denied for schema/);
  });

  it('hands a schema migrated before the roles existed over to its migrator', async () => {
    const legacy = uniqueSchema('roles');
    try {
      await withAdmin(async (admin) => {
        await admin.query(`CREATE SCHEMA "${legacy}"`);
        await admin.query(`CREATE TABLE "${legacy}".items (id bigserial PRIMARY KEY)`);
        await provisionSchemaRoles(admin, { schema: legacy, passwords: { runtime: 'roles-test', migrator: 'roles-test' } });
        const { rows } = await admin.query<{ owner: string }>(`SELECT tableowner AS owner FROM pg_tables WHERE schemaname = $1`, [legacy]);
        expect(rows).toEqual([{ owner: schemaRoles(legacy).migrator }]);
      });
      const runtime = poolAs(schemaRoles(legacy).runtime, legacy);
      await runtime.query('INSERT INTO items DEFAULT VALUES');
      expect((await runtime.query('SELECT id FROM items')).rowCount).toBe(1);
    } finally {
      await dropSchemas(legacy);
      await withAdmin(async (admin) => {
        for (const role of Object.values(schemaRoles(legacy))) {
          await admin.query(`DROP OWNED BY "${role}"`);
          await admin.query(`DROP ROLE "${role}"`);
        }
      });
    }
  });
});

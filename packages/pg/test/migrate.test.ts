import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPool, migrate, MigrationChecksumError } from '../src/index.js';
import { databaseUrl, dropSchemas, migrationDir, silentLogger, uniqueSchema } from './support.js';

const schemas: string[] = [];
const pools: pg.Pool[] = [];

function poolFor(schema: string): pg.Pool {
  const pool = createPool({ connectionString: databaseUrl, schema, max: 3, logger: silentLogger });
  pools.push(pool);
  return pool;
}

function newSchema(): string {
  const schema = uniqueSchema('mig');
  schemas.push(schema);
  return schema;
}

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await dropSchemas(...schemas);
});

async function versions(pool: pg.Pool, schema: string): Promise<string[]> {
  const { rows } = await pool.query<{ version: string }>(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
  return rows.map((row) => row.version);
}

describe('migrate', () => {
  it('creates the schema, applies files in numeric order, and applies nothing the second time', async () => {
    const schema = newSchema();
    const pool = poolFor(schema);
    const directory = await migrationDir({
      '0010_later.sql': 'INSERT INTO steps (name) VALUES (\'ten\');',
      '0002_first.sql': 'CREATE TABLE steps (id serial PRIMARY KEY, name text NOT NULL);',
      '0003_second.sql': "INSERT INTO steps (name) VALUES ('three');",
      'README.md': 'not a migration',
    });

    const first = await migrate(pool, { schema, directory, logger: silentLogger });
    expect(first.applied).toEqual(['0002_first', '0003_second', '0010_later']);
    const second = await migrate(pool, { schema, directory, logger: silentLogger });
    expect(second.applied).toEqual([]);

    const { rows } = await pool.query<{ name: string }>('SELECT name FROM steps ORDER BY id');
    expect(rows.map((row) => row.name)).toEqual(['three', 'ten']);
    expect(await versions(pool, schema)).toEqual(['0002', '0003', '0010']);
  });

  it('applies in-code migrations before the directory, and new files later', async () => {
    const schema = newSchema();
    const pool = poolFor(schema);
    const directory = await migrationDir({ '0001_use.sql': "INSERT INTO shared_things (name) VALUES ('from service');" });
    const extra = [{ version: 'lib_0001', name: 'things', sql: 'CREATE TABLE shared_things (name text);' }];

    expect((await migrate(pool, { schema, directory, extra, logger: silentLogger })).applied).toEqual(['lib_0001_things', '0001_use']);
    await writeFile(path.join(directory, '0002_more.sql'), "INSERT INTO shared_things (name) VALUES ('added later');");
    expect((await migrate(pool, { schema, directory, extra, logger: silentLogger })).applied).toEqual(['0002_more']);
    const { rows } = await pool.query('SELECT name FROM shared_things');
    expect(rows).toHaveLength(2);
  });

  it('lets two concurrent runners apply each migration exactly once, without either failing', async () => {
    const schema = newSchema();
    const directory = await migrationDir({
      '0001_table.sql': 'CREATE TABLE runs (at timestamptz NOT NULL DEFAULT clock_timestamp());',
      // The sleep keeps the first runner inside its migration while the second one arrives.
      '0002_insert.sql': 'SELECT pg_sleep(0.3); INSERT INTO runs DEFAULT VALUES;',
    });
    const [a, b] = await Promise.all([
      migrate(poolFor(schema), { schema, directory, logger: silentLogger }),
      migrate(poolFor(schema), { schema, directory, logger: silentLogger }),
    ]);

    expect([...a.applied, ...b.applied].sort()).toEqual(['0001_table', '0002_insert']);
    const { rows } = await poolFor(schema).query<{ count: string }>('SELECT count(*) FROM runs');
    expect(rows[0]?.count).toBe('1');
  });

  it('refuses to run when an applied migration was edited, naming the file', async () => {
    const schema = newSchema();
    const pool = poolFor(schema);
    const directory = await migrationDir({ '0001_init.sql': 'CREATE TABLE a (id int);' });
    await migrate(pool, { schema, directory, logger: silentLogger });

    await writeFile(path.join(directory, '0001_init.sql'), 'CREATE TABLE a (id bigint);');
    await writeFile(path.join(directory, '0002_next.sql'), 'CREATE TABLE b (id int);');
    const attempt = migrate(pool, { schema, directory, logger: silentLogger });
    await expect(attempt).rejects.toBeInstanceOf(MigrationChecksumError);
    await expect(attempt).rejects.toThrow(/0001_init/);
    // Nothing after the edited file was applied either.
    expect(await versions(pool, schema)).toEqual(['0001']);
  });

  it('rolls back a failing migration and records no version for it', async () => {
    const schema = newSchema();
    const pool = poolFor(schema);
    const directory = await migrationDir({
      '0001_ok.sql': 'CREATE TABLE ok (id int);',
      '0002_broken.sql': 'CREATE TABLE half_done (id int); SELECT 1 / 0;',
    });

    await expect(migrate(pool, { schema, directory, logger: silentLogger })).rejects.toThrow(/0002_broken.*division by zero/);
    expect(await versions(pool, schema)).toEqual(['0001']);
    const { rows } = await pool.query("SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'half_done'", [schema]);
    expect(rows).toHaveLength(0);

    await writeFile(path.join(directory, '0002_broken.sql'), 'CREATE TABLE half_done (id int);');
    expect((await migrate(pool, { schema, directory, logger: silentLogger })).applied).toEqual(['0002_broken']);
  });

  it('rejects a misnamed file and duplicate numbers before touching the database', async () => {
    const schema = newSchema();
    const pool = poolFor(schema);
    await expect(migrate(pool, { schema, directory: await migrationDir({ 'init.sql': 'SELECT 1;' }) })).rejects.toThrow(/init\.sql/);
    await expect(
      migrate(pool, { schema, directory: await migrationDir({ '1_a.sql': 'SELECT 1;', '001_b.sql': 'SELECT 1;' }) }),
    ).rejects.toThrow(/share the number/);
    const { rows } = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    expect(rows).toHaveLength(0);
  });
});

import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** The real Postgres every integration test talks to. */
export const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A schema name no other test run uses. */
export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

/** Drops the given schemas and everything in them, through a connection of its own. */
export async function dropSchemas(...schemas: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A fresh temporary folder holding the given migration files (name → SQL). */
export async function migrationDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'inkwell-migrations-'));
  for (const [name, sql] of Object.entries(files)) await writeFile(path.join(dir, name), sql);
  return dir;
}

/** A logger that records nothing; tests assert on behaviour, not on log lines. */
export const silentLogger = { info: () => {}, warn: () => {}, error: () => {} };

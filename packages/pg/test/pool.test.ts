import { ErrorCode } from '@inkwell/errors';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPool, constraintName, createPool, migrate, translatePgError, withTransaction } from '../src/index.js';
import { databaseUrl, dropSchemas, silentLogger, uniqueSchema } from './support.js';

const mine = uniqueSchema('own');
const theirs = uniqueSchema('other');
let pool: pg.Pool;
let otherPool: pg.Pool;

const extra = [
  {
    version: 'test_0001',
    name: 'accounts',
    sql: `CREATE TABLE accounts (id int PRIMARY KEY, email text NOT NULL CONSTRAINT accounts_email_key UNIQUE, balance int NOT NULL CHECK (balance >= 0));
          CREATE TABLE transfers (id serial PRIMARY KEY, account_id int NOT NULL REFERENCES accounts (id));`,
  },
];

beforeAll(async () => {
  pool = createPool({ connectionString: databaseUrl, schema: mine, max: 4, applicationName: 'inkwell-pg-test', logger: silentLogger });
  otherPool = createPool({ connectionString: databaseUrl, schema: theirs, max: 2, logger: silentLogger });
  await migrate(pool, { schema: mine, extra, logger: silentLogger });
  await migrate(otherPool, { schema: theirs, extra: [{ version: 'test_0001', name: 'secrets', sql: 'CREATE TABLE secrets (v text); INSERT INTO secrets VALUES (\'x\');' }], logger: silentLogger });
});

afterAll(async () => {
  await Promise.all([pool.end(), otherPool.end()]);
  await dropSchemas(mine, theirs);
});

describe('createPool', () => {
  it('runs every connection inside the service schema only', async () => {
    const { rows } = await pool.query<{ schema: string; app: string }>("SELECT current_schema() AS schema, current_setting('application_name') AS app");
    expect(rows[0]).toEqual({ schema: mine, app: 'inkwell-pg-test' });
    await pool.query('CREATE TABLE scratch (id int)');
    const { rows: where } = await pool.query<{ table_schema: string }>("SELECT table_schema FROM information_schema.tables WHERE table_name = 'scratch'");
    expect(where.map((row) => row.table_schema)).toContain(mine);
    // Another service's table is invisible without qualifying it.
    await expect(pool.query('SELECT * FROM secrets')).rejects.toThrow(/relation "secrets" does not exist/);
    await expect(otherPool.query('SELECT * FROM accounts')).rejects.toThrow(/relation "accounts" does not exist/);
  });

  it('keeps an options parameter of the URL and still sets the search path', async () => {
    const url = new URL(databaseUrl);
    url.searchParams.set('options', '-c statement_timeout=1234');
    const custom = createPool({ connectionString: url.toString(), schema: mine, max: 1, logger: silentLogger });
    try {
      const { rows } = await custom.query<{ schema: string; timeout: string }>("SELECT current_schema() AS schema, current_setting('statement_timeout') AS timeout");
      expect(rows[0]).toEqual({ schema: mine, timeout: '1234ms' });
    } finally {
      await custom.end();
    }
  });

  it('applies server settings to every connection and refuses ones that could inject options', async () => {
    const tuned = createPool({ connectionString: databaseUrl, schema: mine, max: 1, logger: silentLogger, settings: { jit: 'off', statement_timeout: '4321' } });
    try {
      const { rows } = await tuned.query<{ schema: string; jit: string; timeout: string }>("SELECT current_schema() AS schema, current_setting('jit') AS jit, current_setting('statement_timeout') AS timeout");
      expect(rows[0]).toEqual({ schema: mine, jit: 'off', timeout: '4321ms' });
    } finally {
      await tuned.end();
    }
    expect(() => createPool({ connectionString: databaseUrl, schema: mine, logger: silentLogger, settings: { jit: 'off -c search_path=public' } })).toThrow(/invalid server setting/);
  });

  it('survives the server ending a checked-out connection: the error is logged, the next query on it fails, the pool carries on', async () => {
    // A Postgres crash ends connections that are checked out but between two queries (a
    // transaction awaiting Kafka); their 'error' event must not end the process.
    let logged!: (message: string | undefined) => void;
    const loggedMessage = new Promise<string | undefined>((resolve) => (logged = resolve));
    const watched = createPool({ connectionString: databaseUrl, schema: mine, max: 1, logger: { ...silentLogger, error: (_fields, message) => logged(message) } });
    try {
      const client = await watched.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      expect(await loggedMessage).toBe('postgres connection failed');
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      const { rows: after } = await watched.query<{ one: number }>('SELECT 1 AS one');
      expect(after).toEqual([{ one: 1 }]);
    } finally {
      await watched.end();
    }
  });

  it('refuses a schema name that would need quoting', () => {
    expect(() => createPool({ connectionString: databaseUrl, schema: 'Robert"); DROP', logger: silentLogger })).toThrow(/Invalid schema name/);
  });
});

describe('withTransaction', () => {
  it('commits what fn did and returns its result', async () => {
    const result = await withTransaction(pool, async (client) => {
      await client.query("INSERT INTO accounts VALUES (1, 'a@example.com', 10)");
      return 'done';
    });
    expect(result).toBe('done');
    const { rows } = await pool.query('SELECT id FROM accounts WHERE id = 1');
    expect(rows).toHaveLength(1);
  });

  it('rolls back everything when fn throws, and frees the connection', async () => {
    const failure = new Error('changed my mind');
    await expect(
      withTransaction(pool, async (client) => {
        await client.query("INSERT INTO accounts VALUES (2, 'b@example.com', 10)");
        throw failure;
      }),
    ).rejects.toBe(failure);
    const { rows } = await pool.query('SELECT id FROM accounts WHERE id = 2');
    expect(rows).toHaveLength(0);
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });

  it('rolls back instead of committing once the signal has aborted, with its reason', async () => {
    const controller = new AbortController();
    const deadline = new Error('The deadline of the call passed.');
    await expect(
      withTransaction(
        pool,
        async (client) => {
          await client.query("INSERT INTO accounts VALUES (3, 'c@example.com', 10)");
          // The caller gives up after the work but before the commit.
          controller.abort(deadline);
          return 'done';
        },
        { signal: controller.signal },
      ),
    ).rejects.toBe(deadline);
    const { rows } = await pool.query('SELECT id FROM accounts WHERE id = 3');
    expect(rows).toHaveLength(0);
    expect(pool.totalCount - pool.idleCount).toBe(0);
  });
});

describe('translatePgError', () => {
  async function failureOf(sql: string): Promise<unknown> {
    try {
      await pool.query(sql);
    } catch (error) {
      return error;
    }
    throw new Error(`expected ${sql} to fail`);
  }

  it('turns a unique violation into ALREADY_EXISTS and keeps the constraint name', async () => {
    await pool.query("INSERT INTO accounts VALUES (10, 'dup@example.com', 0)");
    const error = translatePgError(await failureOf("INSERT INTO accounts VALUES (11, 'dup@example.com', 0)"));
    expect(error.code).toBe(ErrorCode.ALREADY_EXISTS);
    expect(constraintName(error)).toBe('accounts_email_key');
    // The client-facing message carries no SQL detail (the duplicated email stays in the cause).
    expect(error.message).not.toMatch(/dup@example\.com/);
  });

  it('maps foreign-key, check and not-null violations', async () => {
    expect(translatePgError(await failureOf('INSERT INTO transfers (account_id) VALUES (999)')).code).toBe(ErrorCode.FAILED_PRECONDITION);
    expect(translatePgError(await failureOf("INSERT INTO accounts VALUES (20, 'neg@example.com', -1)")).code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(translatePgError(await failureOf('INSERT INTO accounts (id, balance) VALUES (21, 0)')).code).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(translatePgError(await failureOf("SELECT 'not-a-uuid'::uuid")).code).toBe(ErrorCode.INVALID_ARGUMENT);
  });

  it('maps a serialization failure to ABORTED', async () => {
    await pool.query("INSERT INTO accounts VALUES (30, 'ser@example.com', 5)");
    const a = await pool.connect();
    const b = await pool.connect();
    try {
      await a.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await b.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await a.query('SELECT balance FROM accounts WHERE id = 30');
      await b.query('SELECT balance FROM accounts WHERE id = 30');
      await a.query('UPDATE accounts SET balance = 6 WHERE id = 30');
      const blocked = b.query('UPDATE accounts SET balance = 7 WHERE id = 30').then(
        () => undefined,
        (error: unknown) => error,
      );
      await a.query('COMMIT');
      expect(translatePgError(await blocked).code).toBe(ErrorCode.ABORTED);
    } finally {
      await b.query('ROLLBACK');
      a.release();
      b.release();
    }
  });

  it('maps an unreachable server to UNAVAILABLE', async () => {
    const url = new URL(databaseUrl);
    url.port = '1';
    const dead = createPool({ connectionString: url.toString(), schema: mine, max: 1, logger: silentLogger });
    try {
      const error = await dead.query('SELECT 1').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(translatePgError(error).code).toBe(ErrorCode.UNAVAILABLE);
      expect(await checkPool(dead)).toBe(false);
    } finally {
      await dead.end();
    }
  });
});

describe('checkPool', () => {
  it('is true against a live database', async () => {
    expect(await checkPool(pool)).toBe(true);
  });
});

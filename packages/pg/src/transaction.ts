import type pg from 'pg';

/**
 * Runs `fn` inside BEGIN … COMMIT on one connection of `pool` and returns its result. If `fn`
 * throws (or COMMIT fails) the transaction is rolled back and the original error rethrown. The
 * connection always goes back to the pool; one whose ROLLBACK failed is discarded rather than reused.
 * Everything that must be atomic (a change and its outbox event) uses the `client` passed to `fn`.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

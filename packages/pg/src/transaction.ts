import type pg from 'pg';

/** Options of {@link withTransaction}. */
export interface TransactionOptions {
  /**
   * The request the transaction writes for (a gRPC handler's `ctx.signal`): once it has aborted
   * (the caller cancelled, or its deadline passed) the transaction rolls back instead of
   * committing, with the signal's reason, so an answer the caller never got is never stored
   * (docs/api/foundation.md, "Markdown"). It is checked before BEGIN and right before COMMIT.
   */
  signal?: AbortSignal | undefined;
}

/**
 * Runs `fn` inside BEGIN … COMMIT on one connection of `pool` and returns its result. If `fn`
 * throws (or COMMIT fails, or `options.signal` has aborted by then) the transaction is rolled back
 * and the original error rethrown. The connection always goes back to the pool; one whose
 * ROLLBACK failed is discarded rather than reused. Everything that must be atomic (a change and
 * its outbox event) uses the `client` passed to `fn`.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  options.signal?.throwIfAborted();
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    options.signal?.throwIfAborted();
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

import type pg from 'pg';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import { reserveAttempt, type Reservation, type ThrottleState } from '../domain/sign-in-throttle.js';

interface ThrottleRow {
  attempts: number;
  window_started_at: Date;
  locked_until: Date | null;
  lockouts: number;
  updated_at: Date;
}

function toState(row: ThrottleRow): ThrottleState {
  return {
    attempts: row.attempts,
    windowStartedAt: row.window_started_at,
    ...(row.locked_until === null ? {} : { lockedUntil: row.locked_until }),
    lockouts: row.lockouts,
    updatedAt: row.updated_at,
  };
}

/**
 * Sign-in back-off counters in Postgres (table `sign_in_throttles`), shared by every replica of
 * the users service. A reservation holds the counter's row lock while `reserveAttempt` decides,
 * so concurrent attempts are counted exactly.
 */
export class SignInThrottleRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Reserves one attempt on counter `key` (see reserveAttempt), using the database clock. */
  async reserve(key: string): Promise<Reservation> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        // Creates the row if missing so that FOR UPDATE has something to lock, even for the first attempt.
        await client.query(`INSERT INTO sign_in_throttles (key, window_started_at) VALUES ($1, now()) ON CONFLICT (key) DO NOTHING`, [key]);
        const { rows } = await client.query<ThrottleRow & { now: Date }>(
          `SELECT attempts, window_started_at, locked_until, lockouts, updated_at, now() AS now FROM sign_in_throttles WHERE key = $1 FOR UPDATE`,
          [key],
        );
        const row = rows[0]!;
        const reservation = reserveAttempt(toState(row), row.now);
        const { state } = reservation;
        await client.query(
          `UPDATE sign_in_throttles SET attempts = $2, window_started_at = $3, locked_until = $4, lockouts = $5, updated_at = $6 WHERE key = $1`,
          [key, state.attempts, state.windowStartedAt, state.lockedUntil ?? null, state.lockouts, state.updatedAt],
        );
        return reservation;
      });
    });
  }

  /** Forgets the counters `keys` (after a successful sign-in). */
  async clear(keys: readonly string[]): Promise<void> {
    return withPgErrors(async () => {
      await this.pool.query('DELETE FROM sign_in_throttles WHERE key = ANY($1)', [keys]);
    });
  }

  /**
   * Deletes up to `limit` unlocked counters untouched for `olderThanMs`; returns how many. Logins
   * of unknown users would otherwise pile up.
   */
  async prune(olderThanMs: number, limit = 1000): Promise<number> {
    return withPgErrors(async () => {
      const { rowCount } = await this.pool.query(
        `DELETE FROM sign_in_throttles WHERE key IN (
           SELECT key FROM sign_in_throttles
           WHERE updated_at < now() - $1 * interval '1 millisecond' AND (locked_until IS NULL OR locked_until < now())
           LIMIT $2)`,
        [olderThanMs, limit],
      );
      return rowCount ?? 0;
    });
  }
}

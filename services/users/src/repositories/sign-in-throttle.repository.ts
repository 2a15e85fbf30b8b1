import type pg from 'pg';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import { reserveAttempt, reserveFromAddress, type Reservation, type ThrottleState } from '../domain/sign-in-throttle.js';

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
 * the users service, with the attempts per client address on each (`sign_in_address_attempts`).
 * A reservation holds the counter's row lock while `reserveAttempt` and `reserveFromAddress`
 * decide, so concurrent attempts, those of one address included, are counted exactly.
 */
export class SignInThrottleRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Reserves one attempt on counter `key` from client address `address` (see reserveAttempt and
   * reserveFromAddress), using the database clock. An empty address is unknown: it is not
   * recorded and a lock never spares it.
   */
  async reserve(key: string, address: string): Promise<Reservation> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        // Creates the row if missing so that FOR UPDATE has something to lock, even for the first attempt.
        await client.query(`INSERT INTO sign_in_throttles (key, window_started_at) VALUES ($1, now()) ON CONFLICT (key) DO NOTHING`, [key]);
        const { rows } = await client.query<ThrottleRow & { now: Date }>(
          `SELECT attempts, window_started_at, locked_until, lockouts, updated_at, now() AS now FROM sign_in_throttles WHERE key = $1 FOR UPDATE`,
          [key],
        );
        const row = rows[0]!;
        let reservation = reserveAttempt(toState(row), row.now);
        if (address !== '') {
          // Serialized by the counter's row lock above: no other attempt on `key` runs meanwhile.
          const { rows: previous } = await client.query<{ attempts: number; updated_at: Date }>(
            `SELECT attempts, updated_at FROM sign_in_address_attempts WHERE key = $1 AND address = $2`,
            [key, address],
          );
          const counted = reserveFromAddress(reservation, previous[0] && { attempts: previous[0].attempts, updatedAt: previous[0].updated_at }, row.now);
          reservation = counted.reservation;
          await client.query(
            `INSERT INTO sign_in_address_attempts (key, address, attempts, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (key, address) DO UPDATE SET attempts = EXCLUDED.attempts, updated_at = EXCLUDED.updated_at`,
            [key, address, counted.address.attempts, counted.address.updatedAt],
          );
        }
        const { state } = reservation;
        await client.query(
          `UPDATE sign_in_throttles SET attempts = $2, window_started_at = $3, locked_until = $4, lockouts = $5, updated_at = $6 WHERE key = $1`,
          [key, state.attempts, state.windowStartedAt, state.lockedUntil ?? null, state.lockouts, state.updatedAt],
        );
        return reservation;
      });
    });
  }

  /**
   * After a successful sign-in from `address`: forgets that address's attempts on the counters
   * `keys`, and the counters themselves unless they are locked (a lock the owner's clean address
   * was spared keeps holding every other address off).
   */
  async clear(keys: readonly string[], address: string): Promise<void> {
    return withPgErrors(async () => {
      await this.pool.query('DELETE FROM sign_in_address_attempts WHERE key = ANY($1) AND address = $2', [keys, address]);
      await this.pool.query('DELETE FROM sign_in_throttles WHERE key = ANY($1) AND (locked_until IS NULL OR locked_until <= now())', [keys]);
    });
  }

  /**
   * Deletes up to `limit` unlocked counters and up to `limit` address records untouched for
   * `olderThanMs`; returns how many rows in all. Logins of unknown users and the addresses of
   * strangers would otherwise pile up.
   */
  async prune(olderThanMs: number, limit = 1000): Promise<number> {
    return withPgErrors(async () => {
      const counters = await this.pool.query(
        `DELETE FROM sign_in_throttles WHERE key IN (
           SELECT key FROM sign_in_throttles
           WHERE updated_at < now() - $1 * interval '1 millisecond' AND (locked_until IS NULL OR locked_until < now())
           LIMIT $2)`,
        [olderThanMs, limit],
      );
      const addresses = await this.pool.query(
        `DELETE FROM sign_in_address_attempts WHERE (key, address) IN (
           SELECT key, address FROM sign_in_address_attempts WHERE updated_at < now() - $1 * interval '1 millisecond' LIMIT $2)`,
        [olderThanMs, limit],
      );
      return (counters.rowCount ?? 0) + (addresses.rowCount ?? 0);
    });
  }
}

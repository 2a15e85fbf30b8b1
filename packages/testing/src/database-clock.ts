import type { Queryable } from '@inkwell/pg';
import { eventually } from './eventually.js';

/**
 * Waits until the database clock reads at least 1 ms past `date`, so that the next timestamp the
 * database stamps (now() of a later transaction) is later even at the millisecond precision of
 * the API: what a test awaits instead of sleeping before a write whose date must differ.
 */
export async function databaseClockPast(db: Queryable, date: Date): Promise<void> {
  await eventually(
    async () => (await db.query<{ later: boolean }>("SELECT clock_timestamp() >= $1::timestamptz + interval '1 millisecond' AS later", [date])).rows[0]?.later === true,
    { intervalMs: 1, what: `the database clock to pass ${date.toISOString()}` },
  );
}

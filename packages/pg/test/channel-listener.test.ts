import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelListener } from '../src/index.js';
import { databaseUrl, silentLogger, uniqueSchema } from './support.js';

/** A channel no other test run uses. */
const channel = uniqueSchema('wake');
let pool: pg.Pool;
let listener: ChannelListener | undefined;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
});

afterAll(async () => {
  listener?.stop();
  await pool.end();
});

/** Counts the listener's callbacks; `next()` resolves at the next one (or at once if one came since the last). */
function callbacks() {
  let calls = 0;
  let seen = 0;
  let waiter: (() => void) | undefined;
  return {
    onNotification: () => {
      calls++;
      waiter?.();
    },
    get calls() {
      return calls;
    },
    next: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          seen = calls;
          waiter = undefined;
          resolve();
        };
        if (calls > seen) done();
        else waiter = done;
      }),
  };
}

describe('ChannelListener', () => {
  it('calls back on each NOTIFY committed on its channel, and listens again after its connection is killed', async () => {
    const callback = callbacks();
    listener = new ChannelListener({ pool, channel, onNotification: callback.onNotification, logger: silentLogger, retryMs: 100 });
    await listener.start();
    expect(listener.isListening).toBe(true);
    // Listening started: what was notified meanwhile is due, so it calls back once at once.
    await callback.next();
    expect(callback.calls).toBe(1);

    await pool.query('SELECT pg_notify($1, $2)', [channel, '']);
    await callback.next();
    expect(callback.calls).toBe(2);

    await pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [`LISTEN "${channel}"`]);
    // Listening again calls back once (anything may have been notified while it was away).
    await callback.next();
    expect(callback.calls).toBe(3);
    expect(listener.isListening).toBe(true);
    await pool.query('SELECT pg_notify($1, $2)', [channel, '']);
    await callback.next();
    expect(callback.calls).toBe(4);

    listener.stop();
    expect(listener.isListening).toBe(false);
  });
});

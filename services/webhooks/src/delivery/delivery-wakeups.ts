import type { Logger } from '@inkwell/logging';
import type pg from 'pg';
import { DELIVERIES_CHANNEL } from '../repositories/event-intake.repository.js';

/** How long after a lost listening connection it is opened again (polling carries on meanwhile). */
const RELISTEN_MS = 1_000;

/**
 * Wakes the delivery worker as soon as the intake commits new deliveries (LISTEN on
 * {@link DELIVERIES_CHANNEL}, on a dedicated connection of `pool`), instead of at its next poll.
 * Only a shortcut: if the connection is lost the worker's polling still finds everything, and the
 * listener comes back a second later. Returns what stops it.
 */
export function listenForDeliveries(pool: pg.Pool, logger: Logger, wake: () => void): () => Promise<void> {
  let running = true;
  let connection: pg.PoolClient | undefined;
  let relistenTimer: NodeJS.Timeout | undefined;

  const relistenLater = () => {
    if (running) relistenTimer = setTimeout(() => void listen(), RELISTEN_MS);
  };
  const listen = async () => {
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const listening = client;
      listening.on('notification', wake);
      listening.on('error', (error) => {
        if (connection !== listening) return;
        logger.warn({ err: error }, 'delivery listener connection lost; polling until it is back');
        connection = undefined;
        listening.release(error);
        relistenLater();
      });
      await listening.query(`LISTEN ${DELIVERIES_CHANNEL}`);
      if (!running) return listening.release(true);
      connection = listening;
      // Deliveries queued while nobody listened are due now.
      wake();
    } catch (error) {
      client?.release(true);
      logger.warn({ err: error }, 'delivery listener could not start; polling until it is back');
      relistenLater();
    }
  };

  void listen();
  return async () => {
    running = false;
    clearTimeout(relistenTimer);
    const listening = connection;
    connection = undefined;
    listening?.release(true);
  };
}

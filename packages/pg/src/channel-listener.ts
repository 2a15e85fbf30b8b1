import type pg from 'pg';
import { quoteIdentifier } from './identifier.js';
import { stderrLogger, type PgLogger } from './logger.js';

/** Options of {@link ChannelListener}. */
export interface ChannelListenerOptions {
  /** Where the listening connection comes from (it is held, out of the pool's use, while listening). */
  readonly pool: pg.Pool;
  /** The NOTIFY channel: a plain lower-case identifier. */
  readonly channel: string;
  /** Called on every notification, and once each time listening (re)starts: what was notified meanwhile is due. */
  readonly onNotification: () => void;
  readonly logger?: PgLogger;
  /** How long after a lost or refused connection it tries again (default 1 s). */
  readonly retryMs?: number;
}

/**
 * LISTENs on one channel on a dedicated connection, for workers that wake on a NOTIFY instead of
 * polling (they keep polling slowly as a safety net, and quickly while `isListening` is false). A
 * lost connection is logged and replaced `retryMs` later; it never throws to its user.
 */
export class ChannelListener {
  readonly #options: ChannelListenerOptions;
  readonly #logger: PgLogger;
  #connection: pg.PoolClient | undefined;
  #retry: NodeJS.Timeout | undefined;
  #running = false;

  constructor(options: ChannelListenerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? stderrLogger;
    quoteIdentifier(options.channel);
  }

  /** Whether notifications arrive now. */
  get isListening(): boolean {
    return this.#connection !== undefined;
  }

  /** Starts listening; resolves once listening or once the first attempt failed (it retries on its own). */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    await this.#listen();
  }

  /** Stops listening and gives the connection back (closed). */
  stop(): void {
    this.#running = false;
    clearTimeout(this.#retry);
    this.#connection?.release(true);
    this.#connection = undefined;
  }

  async #listen(): Promise<void> {
    const { pool, channel, onNotification } = this.#options;
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const connection = client;
      connection.on('notification', () => onNotification());
      connection.on('error', (error) => {
        if (this.#connection !== connection) return;
        this.#logger.warn({ err: error, channel }, 'listening connection lost; polling until it is back');
        this.#connection = undefined;
        connection.release(error);
        this.#scheduleRetry();
      });
      await connection.query(`LISTEN ${quoteIdentifier(channel)}`);
      if (!this.#running) {
        connection.release(true);
        return;
      }
      this.#connection = connection;
      onNotification();
    } catch (error) {
      client?.release(true);
      this.#logger.warn({ err: error, channel }, 'cannot listen; polling until it can');
      this.#scheduleRetry();
    }
  }

  #scheduleRetry(): void {
    if (!this.#running) return;
    this.#retry = setTimeout(() => void this.#listen(), this.#options.retryMs ?? 1_000);
  }
}

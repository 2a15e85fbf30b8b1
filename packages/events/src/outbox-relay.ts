import type { Logger } from '@inkwell/logging';
import { advisoryLockKey, quoteIdentifier } from '@inkwell/pg';
import { Partitioners, type Kafka, type Message, type Producer } from 'kafkajs';
import { namespaced } from './kafka.js';
import type pg from 'pg';
import { outboxChannel } from './append-event.js';
import { errorMessage } from './retry.js';

/** Options of an OutboxRelay. */
export interface OutboxRelayOptions {
  /** A pool of the service's schema (`createPool`). */
  pool: pg.Pool;
  /** The service's schema: where the outbox is, and the name of the NOTIFY channel. */
  schema: string;
  kafka: Kafka;
  logger: Logger;
  /** Polling interval while the relay cannot listen for notifications (default 100 ms); also the first retry delay. */
  intervalMs?: number;
  /**
   * Polling interval while it listens (default 5 s): only a safety net then, since every commit
   * that adds rows wakes the relay (and while the listener is down it polls every `intervalMs`).
   * Each poll costs an idle service a transaction of four statements, in the service and in
   * Postgres (ten a second cost 3 % of a core; one a second was still the largest idle cost after
   * the Kafka consumers' fetches).
   */
  listeningIntervalMs?: number;
  /** Rows sent per Kafka request and transaction (default 100). */
  batchSize?: number;
  /** Sent rows older than this are deleted (default one day). */
  retentionMs?: number;
  /** How often that deletion runs (default one minute). */
  cleanupIntervalMs?: number;
  /**
   * Fault injection for tests: called after a batch reached Kafka and before it is marked sent.
   * Throwing here behaves like a crash at that moment: the mark is rolled back and the batch is
   * sent again later.
   */
  afterPublish?: (eventIds: string[]) => Promise<void> | void;
}

interface OutboxRow {
  id: string;
  event_id: string;
  topic: string;
  key: string;
  type: string;
  payload: Buffer;
}

/**
 * Longest wait between failed batches: while Kafka (or the database) is away the relay tries again
 * every second, so events flow within about a second of its return.
 */
const MAX_BACKOFF_MS = 1_000;

/**
 * Publishes a service's outbox rows to Kafka, in id order, at least once.
 *
 * Each batch is one transaction: take the schema's relay lock (`pg_try_advisory_xact_lock`, so
 * of several replicas only one publishes at a time and per-key order is kept), lock up to
 * `batchSize` unsent rows with `FOR UPDATE SKIP LOCKED`, send them with an idempotent producer
 * (acks from all replicas; key = row key, value = envelope bytes, headers `event-id` and
 * `event-type`), then mark them sent and commit. A crash or a failed send between publishing and
 * committing leaves the rows unsent, so they are published again: consumers dedupe on event id.
 *
 * The relay wakes immediately on a NOTIFY from `appendEvent`, again at once while full batches
 * keep coming, and otherwise every `listeningIntervalMs` (every `intervalMs` while its listening
 * connection is down). Database or Kafka failures are logged and retried with
 * backoff; they never stop the loop. Sent rows older than `retentionMs` are deleted periodically.
 */
export class OutboxRelay {
  private readonly pool: pg.Pool;
  private readonly table: string;
  private readonly channel: string;
  private readonly logger: Logger;
  private readonly intervalMs: number;
  private readonly listeningIntervalMs: number;
  private readonly batchSize: number;
  private readonly retentionMs: number;
  private readonly cleanupIntervalMs: number;
  private readonly afterPublish: OutboxRelayOptions['afterPublish'];
  private readonly lockKey: string;
  private readonly producer: Producer;
  /** The broker's name of an outbox topic (the Kafka client's namespace applied). */
  private readonly brokerTopic: (topic: string) => string;
  private running = false;
  private producerConnected = false;
  private loop: Promise<void> | undefined;
  private listener: pg.PoolClient | undefined;
  private relistenTimer: NodeJS.Timeout | undefined;
  private notified = false;
  private wake: (() => void) | undefined;
  private lastCleanup = 0;

  constructor(options: OutboxRelayOptions) {
    this.pool = options.pool;
    this.table = `${quoteIdentifier(options.schema)}.outbox`;
    this.channel = quoteIdentifier(outboxChannel(options.schema));
    this.logger = options.logger.child({ component: 'outbox-relay', schema: options.schema });
    this.intervalMs = options.intervalMs ?? 100;
    this.listeningIntervalMs = options.listeningIntervalMs ?? 5_000;
    this.batchSize = options.batchSize ?? 100;
    this.retentionMs = options.retentionMs ?? 24 * 60 * 60 * 1000;
    this.cleanupIntervalMs = options.cleanupIntervalMs ?? 60_000;
    this.afterPublish = options.afterPublish;
    this.lockKey = advisoryLockKey(`inkwell.outbox:${options.schema}`);
    this.brokerTopic = (topic) => namespaced(options.kafka, topic);
    this.producer = options.kafka.producer({
      idempotent: true,
      // Bounded so a dead broker fails the send and ends the transaction holding the rows.
      retry: { retries: 5 },
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  /**
   * Starts listening for notifications and starts the loop. Never fails because Kafka or the
   * database is down: the loop connects, logs and retries until they are back.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.listen();
    this.loop = this.run();
  }

  /** Stops the loop after the batch in flight, then closes the listener and the producer. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    clearTimeout(this.relistenTimer);
    await this.loop;
    this.listener?.release(true);
    this.listener = undefined;
    if (this.producerConnected) await this.producer.disconnect();
    this.producerConnected = false;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let sent = 0;
      try {
        this.notified = false;
        if (!this.producerConnected) {
          await this.producer.connect();
          this.producerConnected = true;
        }
        sent = await this.relayBatch();
        await this.cleanupIfDue();
        failures = 0;
      } catch (error) {
        failures += 1;
        const delay = Math.min(this.intervalMs * 2 ** failures, MAX_BACKOFF_MS);
        // Kafka being away is expected and retried: one short line per attempt, no stack.
        if (isKafkaError(error)) this.logger.warn({ reason: errorMessage(error), retryInMs: delay }, 'outbox relay cannot reach kafka; events wait in the outbox');
        else this.logger.error({ err: error, retryInMs: delay }, 'outbox relay batch failed');
        await this.sleep(delay);
        continue;
      }
      if (sent < this.batchSize) await this.sleep(this.listener === undefined ? this.intervalMs : this.listeningIntervalMs);
    }
  }

  /** Sends one batch; returns how many rows it published (0 when another replica holds the lock). */
  private async relayBatch(): Promise<number> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const { rows: lock } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [this.lockKey]);
      if (!lock[0]?.locked) {
        await client.query('ROLLBACK');
        return 0;
      }
      const { rows } = await client.query<OutboxRow>(
        `SELECT id, event_id, topic, key, type, payload FROM ${this.table}
         WHERE sent_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length > 0) {
        await this.producer.sendBatch({ acks: -1, topicMessages: groupByTopic(rows, this.brokerTopic) });
        await this.afterPublish?.(rows.map((row) => row.event_id));
        await client.query(`UPDATE ${this.table} SET sent_at = now() WHERE id = ANY($1::bigint[])`, [rows.map((row) => row.id)]);
      }
      await client.query('COMMIT');
      return rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private async cleanupIfDue(): Promise<void> {
    const now = Date.now();
    if (now - this.lastCleanup < this.cleanupIntervalMs) return;
    this.lastCleanup = now;
    const { rowCount } = await this.pool.query(
      `DELETE FROM ${this.table} WHERE id IN (
         SELECT id FROM ${this.table} WHERE sent_at < now() - make_interval(secs => $1) LIMIT 10000)`,
      [this.retentionMs / 1000],
    );
    if (rowCount) this.logger.debug({ deleted: rowCount }, 'old outbox rows deleted');
  }

  /** Waits `ms`, or less when a notification arrives or the relay stops. */
  private sleep(ms: number): Promise<void> {
    if (this.notified || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private onNotification(): void {
    this.notified = true;
    this.wake?.();
  }

  /**
   * LISTENs on a dedicated connection. If it breaks, polling carries on and the listener is
   * re-established a second later.
   */
  private async listen(): Promise<void> {
    let client: pg.PoolClient | undefined;
    try {
      client = await this.pool.connect();
      const connection = client;
      connection.on('notification', () => this.onNotification());
      connection.on('error', (error) => {
        if (this.listener !== connection) return;
        this.logger.warn({ err: error }, 'outbox listener connection lost; polling until it is back');
        this.listener = undefined;
        connection.release(error);
        this.scheduleRelisten();
      });
      await connection.query(`LISTEN ${this.channel}`);
      if (!this.running) {
        connection.release(true);
        return;
      }
      this.listener = connection;
      // Rows committed while nobody listened are due now.
      this.onNotification();
    } catch (error) {
      client?.release(true);
      this.logger.warn({ err: error }, 'outbox listener could not start; polling until it is back');
      this.scheduleRelisten();
    }
  }

  private scheduleRelisten(): void {
    if (!this.running) return;
    this.relistenTimer = setTimeout(() => void this.listen(), 1_000);
  }
}

function groupByTopic(rows: OutboxRow[], brokerTopic: (topic: string) => string): Array<{ topic: string; messages: Message[] }> {
  const byTopic = new Map<string, Message[]>();
  for (const row of rows) {
    const topic = brokerTopic(row.topic);
    const messages = byTopic.get(topic) ?? [];
    messages.push({ key: row.key, value: row.payload, headers: { 'event-id': row.event_id, 'event-type': row.type } });
    byTopic.set(topic, messages);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

/** Whether `error` comes from kafkajs (a broker unreachable, a request refused) rather than from our code or the database. */
function isKafkaError(error: unknown): boolean {
  return error instanceof Error && error.name.startsWith('KafkaJS');
}

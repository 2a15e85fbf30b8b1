import { fromBinary } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { ErrorCode } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { translatePgError, withTransaction } from '@inkwell/pg';
import { EventEnvelopeSchema, type EventEnvelope } from '@inkwell/proto/events';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type pg from 'pg';
import { ensureTopics, namespaced, recordSubscription } from './kafka.js';
import { pause, retryUntilDone } from './retry.js';

/** Where a record came from, for logs and for handlers that care. */
export interface RecordPosition {
  topic: string;
  partition: number;
  offset: string;
}

/**
 * Applies one event inside the transaction that also records it as processed. Use `client` for
 * every write, so the effect and the dedupe row commit together. Throwing rolls both back.
 */
export type EventHandler = (envelope: EventEnvelope, client: pg.PoolClient, position: RecordPosition) => Promise<void>;

/**
 * Applies the events of one fetched batch (one partition, in offset order) at once. It must be
 * idempotent and order-safe by itself (there is no dedupe table): a batch that failed is given
 * again, whole, and after a restart events may come again.
 */
export type BatchHandler = (envelopes: EventEnvelope[]) => Promise<void>;

/**
 * Applies the events of one fetched batch that were not processed before (in offset order, each
 * event id once) inside the transaction that records them as processed: use `client` for every
 * write, so the effects and the dedupe rows commit together. Throwing rolls all of them back.
 */
export type ExactlyOnceBatchHandler = (envelopes: EventEnvelope[], client: pg.PoolClient) => Promise<void>;

/** What every consumer is told: where to read, as which group, and how to log. */
export interface ConsumerOptions {
  kafka: Kafka;
  /** Kafka consumer group; replicas of one service share it. */
  groupId: string;
  topics: readonly string[];
  logger: Logger;
  /** Where a brand-new group starts: the oldest retained record (default) or only new ones. */
  fromBeginning?: boolean;
  /** Longest wait between attempts of a failing handler (default 5 s); the first retry is after 100 ms. */
  maxBackoffMs?: number;
}

/**
 * What every service's consumer factory (`create…Consumer` in `services/<name>/src/consumers`)
 * takes besides its own dependencies: the Kafka client and logger, and the group and topics,
 * which default to the production ones and which tests replace with throwaway ones.
 */
export interface ConsumerWiring {
  kafka: Kafka;
  logger: Logger;
  groupId?: string;
  topics?: readonly string[];
}

/** Options of `createConsumer`: a handler applied once per event, in the service's database. */
export interface EventConsumerOptions extends ConsumerOptions {
  /** A pool of the consuming service's schema, which holds `processed_events`. */
  pool: pg.Pool;
  /** Key of the dedupe rows (default: the group id). Two handlers of one service need two names. */
  consumerName?: string;
  handle: EventHandler;
  /** Attempts for a handler failure that retrying will not fix (default 3); then the event is skipped. */
  maxAttempts?: number;
  /** processed_events rows of this consumer older than this are deleted (default 30 days). */
  dedupeRetentionMs?: number;
}

/** Options of `createExactlyOnceBatchConsumer`: `createConsumer`'s, with a handler of many events at once. */
export interface ExactlyOnceBatchConsumerOptions extends Omit<EventConsumerOptions, 'handle'> {
  handleBatch: ExactlyOnceBatchHandler;
  /** At most this many events per transaction (default 500); a larger fetched batch is applied in parts. */
  maxEventsPerTransaction?: number;
}

/** Options of `createBatchConsumer`: a handler applied to each fetched batch, retried until it succeeds. */
export interface BatchConsumerOptions extends ConsumerOptions {
  handleBatch: BatchHandler;
}

/** One unit of work of a fetched batch: one event (per-event handlers) or all of them (batch handlers). */
interface Work {
  envelopes: EventEnvelope[];
  /** The offset resolved once the work is applied. */
  lastOffset: string;
  /** Log fields of the work. */
  fields: Record<string, unknown>;
}

/** How a consumer applies its records: the only difference between a per-event and a per-batch consumer. */
interface Application {
  /** The log component of the consumer. */
  component: string;
  /** Splits a batch's decoded records into units of work, in offset order. */
  split(records: ReadonlyArray<{ message: KafkaMessage; envelope: EventEnvelope }>): Work[];
  /** Applies one unit of work (throwing to have it retried). */
  apply(work: Work, position: RecordPosition): Promise<void>;
  /** Whether a failure of attempt number `attempt` is worth another attempt. */
  retryable(error: unknown, attempt: number): boolean;
  /** Runs while the consumer runs (e.g. periodic cleanup); returns what stops it. */
  whileRunning?(): () => void;
}

/** Failures worth retrying without limit: the database or the network will come back. */
const TRANSIENT: ReadonlySet<string> = new Set([ErrorCode.UNAVAILABLE, ErrorCode.ABORTED, ErrorCode.DEADLINE_EXCEEDED, ErrorCode.RESOURCE_EXHAUSTED]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEDUPE_CLEANUP_INTERVAL_MS = 60 * 60 * 1000;
const JOIN_TIMEOUT_MS = 30_000;
const SESSION_TIMEOUT_MS = 10_000;

/** The pause before starting a consumer again after a crash kafkajs does not restart; doubles while crashes follow each other. */
const FIRST_CRASH_PAUSE_MS = 500;
const LONGEST_CRASH_PAUSE_MS = 30_000;

/**
 * Reads event envelopes from Kafka for one consumer group: the one implementation of connecting,
 * subscribing, retrying and stopping, whichever way the records are applied (`createConsumer`:
 * each event exactly once in the service's database; `createExactlyOnceBatchConsumer`: the same, a
 * fetched batch per transaction; `createBatchConsumer`: a fetched batch at a time, for projections
 * that coalesce).
 *
 * `start()` creates missing topics, connects and subscribes, retrying with backoff (one warning
 * per failed attempt) until the broker answers or `stop()` is called, so a service can start it
 * in the background while Kafka is down. Offsets advance only past records whose work succeeded;
 * a failing handler is retried with exponential backoff while the group session is kept alive,
 * so nothing is skipped unless the application gives up on it (a per-event handler's
 * non-transient failure after `maxAttempts`). Records that are not event envelopes are logged
 * and passed over.
 */
export class EventConsumer {
  private readonly logger: Logger;
  private readonly consumer: Consumer;
  private stopping: AbortController | undefined;
  private stopWhileRunning: (() => void) | undefined;
  private crashPauseMs = FIRST_CRASH_PAUSE_MS;

  constructor(
    private readonly options: ConsumerOptions,
    private readonly application: Application,
  ) {
    this.logger = options.logger.child({ component: application.component, consumer: options.groupId });
    this.consumer = options.kafka.consumer({
      groupId: namespaced(options.kafka, options.groupId),
      // A fetch returns as soon as records exist; the wait only bounds idle polls and shutdown time.
      maxWaitTimeInMs: 1_000,
      // A consumer that kafkajs restarts after a crash (a broker outage) joins as a new member, and
      // the group waits for the crashed one until its session expires: 10 s instead of kafkajs's
      // 30 s. The consumer heartbeats after each unit of work and between retries of a failing one,
      // so only a single attempt taking longer than that costs a rebalance (and a redelivery).
      sessionTimeout: SESSION_TIMEOUT_MS,
    });
    // kafkajs logs every crash itself (a warning when the broker was lost) and restarts the
    // consumer after a retriable one only. A crash it calls final comes from outages too ("Failed
    // to find group coordinator" when the broker goes away during a rejoin), and left the consumer
    // stopped for good while the process looked healthy: start it again, as after a fresh start.
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) {
        this.startAgainAfterCrash(payload.error).catch((error: unknown) => this.logger.error({ err: error }, 'kafka consumer could not be started again after a crash; restart the process'));
      }
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => {
      this.crashPauseMs = FIRST_CRASH_PAUSE_MS;
    });
  }

  /** After a crash kafkajs does not restart (it has disconnected the consumer): a pause, then `start()` again, unless stopped meanwhile. */
  private async startAgainAfterCrash(error: Error): Promise<void> {
    const stopping = this.stopping;
    if (!stopping || stopping.signal.aborted) return;
    const pauseMs = this.crashPauseMs;
    this.crashPauseMs = Math.min(pauseMs * 2, LONGEST_CRASH_PAUSE_MS);
    this.logger.warn({ err: error, restartInMs: pauseMs }, 'kafka consumer crashed with an error kafkajs does not retry; starting it again');
    this.stopWhileRunning?.();
    this.stopWhileRunning = undefined;
    if (!(await pause(pauseMs, stopping.signal))) return;
    // start() sets its own controller before its first await: stop() never falls between.
    this.stopping = undefined;
    await this.start();
  }

  /**
   * Subscribes and starts consuming; resolves once the consumer has joined its group (or after
   * 30 s, with a warning, if the group is slow to form), so callers know records flow from then
   * on; resolves early when `stop()` is called meanwhile. Never rejects because Kafka is down: it
   * retries until the broker answers. Once running, broker outages are ridden out by kafkajs's
   * own reconnects and restarts (attempts at most 1 s apart, rejoining as the same member; see `createKafka`).
   */
  async start(): Promise<void> {
    if (this.stopping && !this.stopping.signal.aborted) return;
    const stopping = new AbortController();
    this.stopping = stopping;
    const subscribed = await retryUntilDone(() => this.subscribe(stopping.signal), { what: 'kafka consumer start', logger: this.logger, signal: stopping.signal });
    if (!subscribed) return;
    const joined = this.joined(stopping.signal);
    await this.consumer.run({ eachBatchAutoResolve: false, eachBatch: (payload) => this.onBatch(payload, stopping.signal) });
    if (!stopping.signal.aborted) this.stopWhileRunning = this.application.whileRunning?.();
    if (!(await joined) && !stopping.signal.aborted) this.logger.warn({ groupId: this.options.groupId }, 'consumer has not joined its group yet');
  }

  /** Stops after the work in flight (its offsets are committed only if it was applied); ends a `start()` still retrying. */
  async stop(): Promise<void> {
    const stopping = this.stopping;
    if (!stopping || stopping.signal.aborted) return;
    stopping.abort();
    this.stopWhileRunning?.();
    await this.consumer.disconnect();
  }

  /** Creates missing topics, connects and subscribes; on failure, or when stopped meanwhile, leaves the consumer disconnected. */
  private async subscribe(stopped: AbortSignal): Promise<void> {
    try {
      // A consumer may start before any producer has written its topics (a fresh namespace, a
      // new cluster): create them first rather than fail the subscription.
      await ensureTopics(this.options.kafka, this.options.topics);
      await this.consumer.connect();
      const topics = this.options.topics.map((topic) => namespaced(this.options.kafka, topic));
      await this.consumer.subscribe({ topics, fromBeginning: this.options.fromBeginning ?? true });
      recordSubscription(this.options.kafka, namespaced(this.options.kafka, this.options.groupId), topics);
      if (stopped.aborted) throw new Error('the consumer was stopped while it subscribed');
    } catch (error) {
      await this.consumer.disconnect().catch(() => {});
      throw error;
    }
  }

  /** Resolves true on the first group join, false after the join timeout or once `signal` aborts. */
  private joined(signal: AbortSignal): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const done = (inGroup: boolean) => {
        removeListener();
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(inGroup);
      };
      const onAbort = () => done(false);
      const removeListener = this.consumer.on(this.consumer.events.GROUP_JOIN, () => done(true));
      const timer = setTimeout(() => done(false), JOIN_TIMEOUT_MS);
      timer.unref();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async onBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload, stopped: AbortSignal): Promise<void> {
    const at = { topic: batch.topic, partition: batch.partition };
    const records: Array<{ message: KafkaMessage; envelope: EventEnvelope }> = [];
    for (const message of batch.messages) {
      const envelope = decodeEnvelope(message.value);
      if (envelope) records.push({ message, envelope });
      else this.logger.warn({ ...at, offset: message.offset }, 'skipping a record that is not an event envelope');
    }
    for (const work of this.application.split(records)) {
      const position = { ...at, offset: work.lastOffset };
      for (let attempt = 1; ; attempt++) {
        if (stopped.aborted || !isRunning() || isStale()) return;
        try {
          await this.application.apply(work, position);
          break;
        } catch (error) {
          if (stopped.aborted) return;
          if (!this.application.retryable(error, attempt)) {
            this.logger.error({ ...position, ...work.fields, attempt, err: error }, 'event handler kept failing; skipped');
            break;
          }
          this.logger.warn({ ...position, ...work.fields, attempt, err: error }, 'event handler failed; retrying');
          await pause(Math.min(100 * 2 ** (attempt - 1), this.options.maxBackoffMs ?? 5_000), stopped);
          await heartbeat();
        }
      }
      resolveOffset(work.lastOffset);
      await heartbeat();
    }
    // Records after the last envelope (not envelopes) are passed over too.
    const last = batch.messages.at(-1);
    if (last) resolveOffset(last.offset);
  }
}

/**
 * A consumer that applies each event exactly once to the service's database: in one transaction
 * it inserts (consumer, event_id) into `processed_events` and, only if that row is new, runs
 * `handle` with the same client; only after the commit does the Kafka offset advance. A
 * redelivered event (relay re-send, rebalance, replay) finds its row and changes nothing.
 * Records that lack a UUID event id are skipped. Handler failures are retried with backoff:
 * transient ones (database unavailable, serialization failure, deadlock) for as long as the
 * consumer runs, others `maxAttempts` times, after which the event is logged at error level and
 * skipped so one bad event cannot stall its partition. Old dedupe rows are deleted hourly.
 */
export function createConsumer(options: EventConsumerOptions): EventConsumer {
  const consumerName = options.consumerName ?? options.groupId;
  return new EventConsumer(options, {
    component: 'event-consumer',
    split: (records) => records.map(({ message, envelope }) => ({ envelopes: [envelope], lastOffset: message.offset, fields: { eventId: envelope.eventId, type: envelope.type } })),
    async apply(work, position) {
      const envelope = work.envelopes[0]!;
      await withTransaction(options.pool, async (client) => {
        const { rowCount } = await client.query('INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [consumerName, envelope.eventId]);
        if (rowCount === 0) return;
        await options.handle(envelope, client, position);
      });
    },
    retryable: (error, attempt) => isTransient(error) || attempt < (options.maxAttempts ?? 3),
    whileRunning: dedupeCleanup(options, consumerName),
  });
}

/**
 * `createConsumer` a batch at a time: the events of a fetched batch (at most
 * `maxEventsPerTransaction` of them) are recorded in `processed_events` and applied together, in
 * one transaction, by `handleBatch`, which is given only the events not processed before. Same
 * guarantees: each event exactly once, offsets advanced only after the commit, transient failures
 * retried for as long as the consumer runs. When a batch fails otherwise, its events are applied
 * one transaction each, so that one bad event fails alone: after `maxAttempts` it is logged and
 * skipped while the others are applied.
 */
export function createExactlyOnceBatchConsumer(options: ExactlyOnceBatchConsumerOptions): EventConsumer {
  const consumerName = options.consumerName ?? options.groupId;
  const logger = options.logger.child({ component: 'batch-event-consumer', consumer: consumerName });
  const maxEvents = options.maxEventsPerTransaction ?? 500;
  const applyTogether = (envelopes: readonly EventEnvelope[]) =>
    withTransaction(options.pool, async (client) => {
      const { rows } = await client.query<{ event_id: string }>(
        'INSERT INTO processed_events (consumer, event_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING event_id::text',
        [consumerName, envelopes.map((envelope) => envelope.eventId)],
      );
      const fresh = new Set(rows.map((row) => row.event_id));
      // Each new id once (a batch may hold one event twice), in offset order.
      const todo = envelopes.filter((envelope) => fresh.delete(envelope.eventId.toLowerCase()));
      if (todo.length > 0) await options.handleBatch(todo, client);
    });
  return new EventConsumer(options, {
    component: 'batch-event-consumer',
    split: (records) => {
      const works: Work[] = [];
      for (let start = 0; start < records.length; start += maxEvents) {
        const part = records.slice(start, start + maxEvents);
        works.push({ envelopes: part.map((record) => record.envelope), lastOffset: part.at(-1)!.message.offset, fields: { events: part.length, firstOffset: part[0]!.message.offset } });
      }
      return works;
    },
    async apply(work) {
      try {
        await applyTogether(work.envelopes);
      } catch (error) {
        if (work.envelopes.length === 1 || isTransient(error)) throw error;
        logger.warn({ err: error, events: work.envelopes.length }, 'a batch of events failed; applying them one at a time');
        let firstFailure: unknown;
        for (const envelope of work.envelopes) {
          try {
            await applyTogether([envelope]);
          } catch (eventError) {
            if (isTransient(eventError)) throw eventError;
            logger.warn({ err: eventError, eventId: envelope.eventId, type: envelope.type }, 'event handler failed');
            firstFailure ??= eventError;
          }
        }
        if (firstFailure !== undefined) throw firstFailure;
      }
    },
    retryable: (error, attempt) => isTransient(error) || attempt < (options.maxAttempts ?? 3),
    whileRunning: dedupeCleanup(options, consumerName),
  });
}

/** Whether a handler failure is worth retrying without limit (the database or the network will come back). */
function isTransient(error: unknown): boolean {
  return TRANSIENT.has(translatePgError(error).code);
}

/** The hourly deletion of a consumer's `processed_events` rows older than its retention (default 30 days). */
function dedupeCleanup(options: Pick<EventConsumerOptions, 'pool' | 'logger' | 'dedupeRetentionMs'>, consumerName: string): () => () => void {
  const logger = options.logger.child({ component: 'event-consumer', consumer: consumerName });
  const retentionMs = options.dedupeRetentionMs ?? 30 * 24 * 60 * 60 * 1000;
  const deleteOldDedupeRows = () =>
    options.pool
      .query('DELETE FROM processed_events WHERE consumer = $1 AND processed_at < now() - make_interval(secs => $2)', [consumerName, retentionMs / 1000])
      .catch((error: unknown) => logger.warn({ err: error }, 'could not delete old processed_events rows'));
  return () => {
    const timer = setInterval(() => void deleteOldDedupeRows(), DEDUPE_CLEANUP_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
  };
}

/** The production consumer group and topics of a service's consumer, which its `ConsumerWiring` may replace. */
export interface ConsumerDefaults {
  groupId: string;
  topics: readonly string[];
}

/** Applies one event of a service's consumer with the transaction's `client` (see {@link createServiceConsumer}). */
export type ServiceEventHandler = (envelope: EventEnvelope, client: pg.PoolClient) => Promise<void>;

/**
 * Events a service's consumer applies in one transaction: a backlog (after a broker outage, say)
 * is worked off at hundreds of events a second instead of one commit per event, while the rows a
 * transaction locks stay locked for a few milliseconds only.
 */
export const SERVICE_CONSUMER_EVENTS_PER_TRANSACTION = 100;

/**
 * A service's exactly-once consumer built from its factory's options: the Kafka client and
 * logger of `wiring`, and its group and topics where given (tests), else `defaults`. `handle`
 * applies one event at a time, in offset order; see {@link createServiceBatchConsumer} for the
 * transactions they share.
 */
export function createServiceConsumer(wiring: ConsumerWiring & { pool: pg.Pool }, defaults: ConsumerDefaults, handle: ServiceEventHandler): EventConsumer {
  return createServiceBatchConsumer(wiring, defaults, async (envelopes, client) => {
    for (const envelope of envelopes) await handle(envelope, client);
  });
}

/**
 * {@link createServiceConsumer} for a handler of many events at once (e.g. one write per story
 * for all of a batch's events about it): the events of a fetched batch not processed before,
 * at most {@link SERVICE_CONSUMER_EVENTS_PER_TRANSACTION}, share a transaction with their dedupe
 * rows (`createExactlyOnceBatchConsumer`): each event once, and an event that fails for good
 * fails alone.
 */
export function createServiceBatchConsumer(wiring: ConsumerWiring & { pool: pg.Pool }, defaults: ConsumerDefaults, handleBatch: ExactlyOnceBatchHandler): EventConsumer {
  return createExactlyOnceBatchConsumer({
    kafka: wiring.kafka,
    groupId: wiring.groupId ?? defaults.groupId,
    topics: wiring.topics ?? defaults.topics,
    pool: wiring.pool,
    logger: wiring.logger,
    maxEventsPerTransaction: SERVICE_CONSUMER_EVENTS_PER_TRANSACTION,
    handleBatch,
  });
}

/** When the event happened: the envelope's occurredAt, or now for an envelope without one. */
export function occurredAtOf(envelope: EventEnvelope): Date {
  return envelope.occurredAt ? timestampDate(envelope.occurredAt) : new Date();
}

/**
 * A consumer that applies a fetched batch at a time (e.g. one read and one write per batch
 * instead of per event). The batch's offsets advance only after the handler succeeded for the
 * whole batch; a failure is retried for as long as the consumer runs, so an outage of the
 * handler's store only delays the projection.
 */
export function createBatchConsumer(options: BatchConsumerOptions): EventConsumer {
  return new EventConsumer(options, {
    component: 'batch-consumer',
    split: (records) => {
      const last = records.at(-1);
      return last ? [{ envelopes: records.map((record) => record.envelope), lastOffset: last.message.offset, fields: { events: records.length } }] : [];
    },
    apply: (work) => options.handleBatch(work.envelopes),
    retryable: () => true,
  });
}

/** The envelope in a record value, or undefined for anything that is not a usable envelope. */
export function decodeEnvelope(value: Buffer | null): EventEnvelope | undefined {
  if (!value) return undefined;
  try {
    const envelope = fromBinary(EventEnvelopeSchema, value);
    // An unknown payload case (an event added after this build) still decodes: handlers ignore it.
    return UUID.test(envelope.eventId) ? envelope : undefined;
  } catch {
    return undefined;
  }
}

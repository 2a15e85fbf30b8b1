import { fromBinary } from '@bufbuild/protobuf';
import { ErrorCode } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { translatePgError, withTransaction } from '@inkwell/pg';
import { EventEnvelopeSchema, type EventEnvelope } from '@inkwell/proto/events';
import type { Consumer, EachMessagePayload, Kafka } from 'kafkajs';
import { ensureTopics, namespaced, recordSubscription } from './kafka.js';
import type pg from 'pg';

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

/** Options of `createConsumer`. */
export interface EventConsumerOptions {
  kafka: Kafka;
  /** Kafka consumer group; replicas of one service share it. */
  groupId: string;
  topics: readonly string[];
  /** A pool of the consuming service's schema, which holds `processed_events`. */
  pool: pg.Pool;
  /** Key of the dedupe rows (default: the group id). Two handlers of one service need two names. */
  consumerName?: string;
  handle: EventHandler;
  logger: Logger;
  /** Where a brand-new group starts: the oldest retained record (default) or only new ones. */
  fromBeginning?: boolean;
  /** Attempts for a handler failure that retrying will not fix (default 3); then the event is skipped. */
  maxAttempts?: number;
  /** processed_events rows of this consumer older than this are deleted (default 30 days). */
  dedupeRetentionMs?: number;
}

/** Failures worth retrying without limit: the database or the network will come back. */
const TRANSIENT: ReadonlySet<string> = new Set([ErrorCode.UNAVAILABLE, ErrorCode.ABORTED, ErrorCode.DEADLINE_EXCEEDED, ErrorCode.RESOURCE_EXHAUSTED]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_BACKOFF_MS = 5_000;
const DEDUPE_CLEANUP_INTERVAL_MS = 60 * 60 * 1000;
const JOIN_TIMEOUT_MS = 30_000;

/**
 * Reads event envelopes from Kafka and applies each exactly once to the service's database.
 *
 * For every record: decode the envelope; in one transaction insert (consumer, event_id) into
 * `processed_events` and, only if that row is new, run `handle` with the same client; commit;
 * only then does the Kafka offset advance. A redelivered event (relay re-send, rebalance, replay)
 * finds its row and changes nothing. Records that do not decode, or lack a UUID event id, are
 * logged and skipped. Handler failures are retried with backoff: transient ones (database
 * unavailable, serialization failure, deadlock) for as long as the consumer runs, others
 * `maxAttempts` times, after which the event is logged at error level and skipped so one bad
 * event cannot stall its partition.
 */
export class EventConsumer {
  private readonly options: EventConsumerOptions;
  private readonly consumerName: string;
  private readonly logger: Logger;
  private readonly consumer: Consumer;
  private running = false;
  private cleanupTimer: NodeJS.Timeout | undefined;

  constructor(options: EventConsumerOptions) {
    this.options = options;
    this.consumerName = options.consumerName ?? options.groupId;
    this.logger = options.logger.child({ component: 'event-consumer', consumer: this.consumerName });
    // A fetch returns as soon as records exist; the wait only bounds idle polls and shutdown time.
    this.consumer = options.kafka.consumer({ groupId: namespaced(options.kafka, options.groupId), maxWaitTimeInMs: 1_000 });
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      this.logger.error({ err: payload.error, restart: payload.restart }, 'kafka consumer crashed');
    });
  }

  /**
   * Subscribes and starts consuming; resolves once the consumer has joined its group (or after
   * 30 s, with a warning, if the group is slow to form), so callers know records flow from then on.
   * Creates missing topics first. Rejects when Kafka cannot be reached at all (kafkajs has retried by then); once running,
   * broker outages are ridden out by kafkajs's own reconnects.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      // A consumer may start before any producer has written its topics (a fresh namespace, a
      // new cluster): create them first rather than fail the subscription.
      await ensureTopics(this.options.kafka, this.options.topics);
      await this.consumer.connect();
      const topics = this.options.topics.map((topic) => namespaced(this.options.kafka, topic));
      await this.consumer.subscribe({ topics, fromBeginning: this.options.fromBeginning ?? true });
      recordSubscription(this.options.kafka, namespaced(this.options.kafka, this.options.groupId), topics);
    } catch (error) {
      this.running = false;
      await this.consumer.disconnect().catch(() => {});
      throw error;
    }
    let removeListener: (() => void) | undefined;
    const joined = new Promise<boolean>((resolve) => {
      removeListener = this.consumer.on(this.consumer.events.GROUP_JOIN, () => resolve(true));
      setTimeout(() => resolve(false), JOIN_TIMEOUT_MS).unref();
    });
    await this.consumer.run({ eachMessage: (payload) => this.onMessage(payload) });
    const inGroup = await joined;
    removeListener?.();
    if (!inGroup) this.logger.warn({ groupId: this.options.groupId }, 'consumer has not joined its group yet');
    this.cleanupTimer = setInterval(() => void this.deleteOldDedupeRows(), DEDUPE_CLEANUP_INTERVAL_MS);
    this.cleanupTimer.unref();
  }

  /** Stops after the record in flight (its offset is committed only if it was applied). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.cleanupTimer);
    await this.consumer.disconnect();
  }

  private async onMessage({ topic, partition, message, heartbeat }: EachMessagePayload): Promise<void> {
    const position = { topic, partition, offset: message.offset };
    const envelope = decodeEnvelope(message.value);
    if (!envelope) {
      this.logger.warn(position, 'skipping a record that is not an event envelope');
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await this.apply(envelope, position);
        return;
      } catch (raw) {
        const error = translatePgError(raw);
        const fields = { ...position, eventId: envelope.eventId, type: envelope.type, attempt, err: raw };
        const transient = TRANSIENT.has(error.code);
        if (!this.running) throw error;
        if (!transient && attempt >= (this.options.maxAttempts ?? 3)) {
          this.logger.error(fields, 'event handler kept failing; event skipped');
          return;
        }
        this.logger.warn(fields, 'event handler failed; retrying');
        await delay(Math.min(100 * 2 ** attempt, MAX_BACKOFF_MS));
        await heartbeat();
      }
    }
  }

  private async apply(envelope: EventEnvelope, position: RecordPosition): Promise<void> {
    await withTransaction(this.options.pool, async (client) => {
      const { rowCount } = await client.query('INSERT INTO processed_events (consumer, event_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        this.consumerName,
        envelope.eventId,
      ]);
      if (rowCount === 0) return;
      await this.options.handle(envelope, client, position);
    });
  }

  private async deleteOldDedupeRows(): Promise<void> {
    const retentionMs = this.options.dedupeRetentionMs ?? 30 * 24 * 60 * 60 * 1000;
    try {
      await this.options.pool.query('DELETE FROM processed_events WHERE consumer = $1 AND processed_at < now() - make_interval(secs => $2)', [
        this.consumerName,
        retentionMs / 1000,
      ]);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not delete old processed_events rows');
    }
  }
}

/** Creates an EventConsumer; call `start()` to begin. */
export function createConsumer(options: EventConsumerOptions): EventConsumer {
  return new EventConsumer(options);
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import type { Logger } from '@inkwell/logging';
import type { EventEnvelope } from '@inkwell/proto/events';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { decodeEnvelope } from './event-consumer.js';
import { ensureTopics, namespaced, recordSubscription } from './kafka.js';

/**
 * Applies the events of one fetched batch (one partition, in offset order) at once. It must be
 * idempotent and order-safe by itself (there is no dedupe table): a batch that failed is given
 * again, whole, and after a restart events may come again.
 */
export type BatchHandler = (envelopes: EventEnvelope[]) => Promise<void>;

/** Options of `createBatchConsumer`. */
export interface BatchConsumerOptions {
  kafka: Kafka;
  /** Kafka consumer group; replicas of one service share it. */
  groupId: string;
  topics: readonly string[];
  handle: BatchHandler;
  logger: Logger;
  /** Where a brand-new group starts: the oldest retained record (default) or only new ones. */
  fromBeginning?: boolean;
  /** Longest wait between attempts of a failing batch (default 5 s); the first retry is after 100 ms. */
  maxBackoffMs?: number;
}

const JOIN_TIMEOUT_MS = 30_000;

/**
 * Reads event envelopes from Kafka a fetched batch at a time, for projections that coalesce
 * (e.g. one read and one write per batch instead of per event). Offsets advance only after the
 * handler succeeded for the whole batch; a failure is retried with exponential backoff for as
 * long as the consumer runs (the group session is kept alive meanwhile), so nothing is skipped
 * and an outage of the handler's store only delays the projection. Records that are not event
 * envelopes are logged and passed over.
 */
export class BatchEventConsumer {
  private readonly logger: Logger;
  private readonly consumer: Consumer;
  private running = false;

  constructor(private readonly options: BatchConsumerOptions) {
    this.logger = options.logger.child({ component: 'batch-consumer', consumer: options.groupId });
    this.consumer = options.kafka.consumer({ groupId: namespaced(options.kafka, options.groupId), maxWaitTimeInMs: 1_000 });
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      this.logger.error({ err: payload.error, restart: payload.restart }, 'kafka consumer crashed');
    });
  }

  /** Subscribes and starts consuming; resolves once the group is joined (or after 30 s, with a warning). */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
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
    await this.consumer.run({ eachBatchAutoResolve: false, eachBatch: (payload) => this.onBatch(payload) });
    const inGroup = await joined;
    removeListener?.();
    if (!inGroup) this.logger.warn({ groupId: this.options.groupId }, 'consumer has not joined its group yet');
  }

  /** Stops; a batch in flight is abandoned without committing its offsets. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.consumer.disconnect();
  }

  private async onBatch({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const envelopes: EventEnvelope[] = [];
    for (const message of batch.messages) {
      const envelope = decodeEnvelope(message.value);
      if (envelope) envelopes.push(envelope);
      else this.logger.warn({ topic: batch.topic, partition: batch.partition, offset: message.offset }, 'skipping a record that is not an event envelope');
    }
    for (let attempt = 1; envelopes.length > 0; attempt++) {
      if (!this.running || !isRunning() || isStale()) return;
      try {
        await this.options.handle(envelopes);
        break;
      } catch (error) {
        this.logger.warn({ topic: batch.topic, partition: batch.partition, firstOffset: batch.firstOffset(), events: envelopes.length, attempt, err: error }, 'batch handler failed; retrying');
        await delay(Math.min(100 * 2 ** (attempt - 1), this.options.maxBackoffMs ?? 5_000));
        await heartbeat();
      }
    }
    const last = batch.messages.at(-1);
    if (last) resolveOffset(last.offset);
    await commitOffsetsIfNecessary();
    await heartbeat();
  }
}

/** Creates a BatchEventConsumer; call `start()` to begin. */
export function createBatchConsumer(options: BatchConsumerOptions): BatchEventConsumer {
  return new BatchEventConsumer(options);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

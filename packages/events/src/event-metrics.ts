import type { Logger } from '@inkwell/logging';
import { quoteIdentifier } from '@inkwell/pg';
import type { Admin, Kafka } from 'kafkajs';
import type pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import { subscriptionsOf } from './kafka.js';

/** Options of {@link registerEventMetrics}. */
export interface EventMetricsOptions {
  /** The process's Prometheus registry (`createMetricsRegistry` of @inkwell/grpc). */
  registry: Registry;
  /** A pool of the service's schema, which holds the outbox. */
  pool: pg.Pool;
  schema: string;
  /** The client the service's consumers were created with; their groups are measured. */
  kafka: Kafka;
  logger: Logger;
}

/** One reading of the outbox, shared by the two outbox gauges of a scrape. */
interface OutboxReading {
  pending: number;
  oldestAgeSeconds: number;
}

/** Readings younger than this are reused: one scrape asks the database once. */
const READING_TTL_MS = 1_000;

/**
 * Registers the event pipeline's gauges in `registry`, measured when Prometheus scrapes
 * (docs/api/foundation.md, "Service metrics"):
 *
 * - `inkwell_outbox_pending_events{schema}`: outbox rows not yet relayed to Kafka;
 * - `inkwell_outbox_oldest_pending_age_seconds{schema}`: age of the oldest of them (0 when none);
 * - `inkwell_kafka_consumer_lag{consumergroup,topic,partition}`: for every group this process
 *   consumes with (`kafka`), the partition's high watermark minus the group's committed offset
 *   (its low watermark when the group has committed nothing yet, as it starts from the beginning).
 *
 * A store that does not answer leaves its gauges out of that scrape (logged at debug level)
 * rather than failing the whole endpoint. `close()` disconnects the Kafka admin client it keeps.
 */
export function registerEventMetrics(options: EventMetricsOptions): { close(): Promise<void> } {
  const { registry, pool, schema, kafka } = options;
  const logger = options.logger.child({ component: 'event-metrics' });
  const table = `${quoteIdentifier(schema)}.outbox`;
  let reading: { at: number; value: Promise<OutboxReading | undefined> } | undefined;
  const readOutbox = (): Promise<OutboxReading | undefined> => {
    if (reading === undefined || Date.now() - reading.at > READING_TTL_MS) {
      const value = pool
        .query<{ pending: string; oldest: number | null }>(`SELECT count(*) AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest FROM ${table} WHERE sent_at IS NULL`)
        .then(
          ({ rows }) => ({ pending: Number(rows[0]?.pending ?? 0), oldestAgeSeconds: Math.max(0, rows[0]?.oldest ?? 0) }),
          (error: unknown) => {
            logger.debug({ err: error }, 'could not read the outbox backlog');
            return undefined;
          },
        );
      reading = { at: Date.now(), value };
    }
    return reading.value;
  };

  // One gauge per outbox figure, both from the same (shared) reading; none while it cannot be read.
  const outboxGauge = (name: string, help: string, figure: 'pending' | 'oldestAgeSeconds') =>
    new Gauge({
      name,
      help,
      labelNames: ['schema'],
      registers: [registry],
      async collect() {
        this.reset();
        const value = await readOutbox();
        if (value !== undefined) this.set({ schema }, value[figure]);
      },
    });
  outboxGauge('inkwell_outbox_pending_events', 'Outbox rows not yet published to Kafka.', 'pending');
  outboxGauge('inkwell_outbox_oldest_pending_age_seconds', 'Age of the oldest outbox row not yet published to Kafka (0 when none).', 'oldestAgeSeconds');

  let admin: Promise<Admin> | undefined;
  const connectedAdmin = (): Promise<Admin> => {
    admin ??= (async () => {
      const client = kafka.admin();
      await client.connect();
      return client;
    })().catch((error: unknown) => {
      admin = undefined;
      throw error;
    });
    return admin;
  };
  new Gauge({
    name: 'inkwell_kafka_consumer_lag',
    help: 'Records a consumer group of this service has not processed yet, by partition.',
    labelNames: ['consumergroup', 'topic', 'partition'],
    registers: [registry],
    async collect() {
      this.reset();
      const groups = subscriptionsOf(kafka);
      if (groups.size === 0) return;
      try {
        const client = await connectedAdmin();
        for (const [groupId, topics] of groups) {
          const committed = await client.fetchOffsets({ groupId, topics: [...topics] });
          for (const topic of committed) {
            const watermarks = new Map((await client.fetchTopicOffsets(topic.topic)).map((partition) => [partition.partition, partition]));
            for (const partition of topic.partitions) {
              const marks = watermarks.get(partition.partition);
              if (marks === undefined) continue;
              const position = Number(partition.offset) >= 0 ? Number(partition.offset) : Number(marks.low);
              this.set({ consumergroup: groupId, topic: topic.topic, partition: String(partition.partition) }, Math.max(0, Number(marks.high) - position));
            }
          }
        }
      } catch (error) {
        logger.debug({ err: error }, 'could not read consumer lag');
      }
    },
  });
  return {
    async close() {
      const pending = admin;
      admin = undefined;
      await pending?.then((client) => client.disconnect()).catch(() => {});
    },
  };
}

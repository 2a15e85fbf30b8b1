import type { Logger } from '@inkwell/logging';
import type { Kafka } from 'kafkajs';
import type { EventConsumer } from './event-consumer.js';
import { ensureTopics } from './kafka.js';
import type { OutboxRelay } from './outbox-relay.js';
import { retryUntilDone } from './retry.js';

/** Options of {@link startEventWork}. */
export interface EventWorkOptions {
  kafka: Kafka;
  logger: Logger;
  /** The topics the service publishes to through its outbox; created before the relay starts. */
  topics: readonly string[];
  relay: OutboxRelay;
  /** The service's consumers (each creates the topics it reads). */
  consumers: readonly EventConsumer[];
}

/** The Kafka side of a running service. */
export interface EventWork {
  /** Resolves once the topics exist, the relay runs and every consumer has joined its group (or was stopped). */
  readonly ready: Promise<void>;
  /** Stops the consumers and the relay, and ends whatever is still retrying. */
  stop(): Promise<void>;
}

/**
 * Starts a service's Kafka work in the background: creates its topics (retrying with backoff,
 * one warning per failed attempt, until the broker answers), then starts the outbox relay and the
 * consumers, which ride out later outages themselves. Nothing here waits for Kafka before the
 * service serves: writes keep committing their events to the outbox meanwhile, and the relay
 * sends them once the broker is back (docs/api/foundation.md, "Service start-up and readiness").
 */
export function startEventWork(options: EventWorkOptions): EventWork {
  const stopping = new AbortController();
  const logger = options.logger.child({ component: 'event-work' });
  const ready = (async () => {
    try {
      await start();
    } catch (error) {
      logger.error({ err: error }, 'kafka work failed to start');
    }
  })();
  async function start(): Promise<void> {
    const topics = await retryUntilDone(() => ensureTopics(options.kafka, options.topics), { what: 'creating kafka topics', logger, signal: stopping.signal });
    if (!topics) return;
    await options.relay.start();
    if (stopping.signal.aborted) return;
    await Promise.all(options.consumers.map((consumer) => consumer.start()));
    if (!stopping.signal.aborted) logger.info('kafka topics, outbox relay and consumers started');
  }
  return {
    ready,
    async stop() {
      if (stopping.signal.aborted) return;
      stopping.abort();
      await Promise.all(options.consumers.map((consumer) => consumer.stop()));
      await ready;
      await options.relay.stop();
    },
  };
}

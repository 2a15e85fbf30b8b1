export { eventsMigrations } from './outbox.migration.js';
export { appendEvent, outboxChannel, type AppendEventInput, type EventPayloadInit } from './append-event.js';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay.js';
export {
  EventConsumer,
  createConsumer,
  createBatchConsumer,
  createExactlyOnceBatchConsumer,
  createServiceConsumer,
  createServiceBatchConsumer,
  occurredAtOf,
  decodeEnvelope,
  type ConsumerOptions,
  type ConsumerWiring,
  type ConsumerDefaults,
  type EventConsumerOptions,
  type BatchConsumerOptions,
  type EventHandler,
  type ServiceEventHandler,
  SERVICE_CONSUMER_EVENTS_PER_TRANSACTION,
  type BatchHandler,
  type ExactlyOnceBatchConsumerOptions,
  type ExactlyOnceBatchHandler,
  type RecordPosition,
} from './event-consumer.js';
export { createKafka, ensureTopics, kafkaClientConfig, namespaced, subscriptionsOf, type KafkaOptions, type TopicSpec } from './kafka.js';
export { retryUntilDone, type RetryOptions } from './retry.js';
export { startEventWork, type EventWork, type EventWorkOptions } from './event-work.js';
export { registerEventMetrics, type EventMetricsOptions } from './event-metrics.js';
export { openServiceDatabase, type ServiceDatabaseOptions } from './service-database.js';
export { storyStateOf, type StoryState } from './story-state.js';

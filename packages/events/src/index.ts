export { eventsMigrations } from './outbox.migration.js';
export { appendEvent, outboxChannel, type AppendEventInput, type EventPayloadInit } from './append-event.js';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay.js';
export { EventConsumer, createConsumer, decodeEnvelope, type EventConsumerOptions, type EventHandler, type RecordPosition } from './event-consumer.js';
export { createKafka, ensureTopics, kafkaClientConfig, namespaced, subscriptionsOf, type KafkaOptions, type TopicSpec } from './kafka.js';
export { BatchEventConsumer, createBatchConsumer, type BatchConsumerOptions, type BatchHandler } from './batch-consumer.js';
export { registerEventMetrics, type EventMetricsOptions } from './event-metrics.js';
export { openServiceDatabase, type ServiceDatabaseOptions } from './service-database.js';

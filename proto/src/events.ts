/**
 * inkwell.events.v1: EventEnvelope, the value of every Kafka record. Its `payload` oneof holds
 * one domain event; the event messages themselves are exported by each domain's entry file.
 */
export * from './gen/inkwell/events/v1/envelope_pb.js';

/** inkwell.webhooks.v1: the WebhookEndpoint and WebhookDelivery resources, WebhookService, and the endpoint events. */
export * from './gen/inkwell/webhooks/v1/webhooks_pb.js';
export * from './gen/inkwell/webhooks/v1/webhooks_service_pb.js';
export * from './gen/inkwell/webhooks/v1/events_pb.js';

/** inkwell.messaging.v1: the PrivateMessage resource, MessagingService, and the message events. */
export * from './gen/inkwell/messaging/v1/messaging_pb.js';
export * from './gen/inkwell/messaging/v1/messaging_service_pb.js';
export * from './gen/inkwell/messaging/v1/events_pb.js';

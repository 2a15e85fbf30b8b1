/** inkwell.messaging.v1: the PrivateMessage resource, MessagingService, the message events, and the notifications inbox (Notification, NotificationService). */
export * from './gen/inkwell/messaging/v1/messaging_pb.js';
export * from './gen/inkwell/messaging/v1/messaging_service_pb.js';
export * from './gen/inkwell/messaging/v1/events_pb.js';
export * from './gen/inkwell/messaging/v1/notifications_pb.js';
export * from './gen/inkwell/messaging/v1/notifications_service_pb.js';

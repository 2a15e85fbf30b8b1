/** inkwell.users.v1: the User and Follow resources, UsersService, and the users domain events. */
export * from './gen/inkwell/users/v1/users_pb.js';
export * from './gen/inkwell/users/v1/users_service_pb.js';
export * from './gen/inkwell/users/v1/events_pb.js';
export * from './gen/inkwell/users/v1/moderation_pb.js';
export * from './gen/inkwell/users/v1/moderation_service_pb.js';
export * from './gen/inkwell/users/v1/moderation_events_pb.js';
// Blocks and mutes (RelationsService, docs/api/safety.md).
export * from './gen/inkwell/users/v1/relations_pb.js';
export * from './gen/inkwell/users/v1/relations_service_pb.js';

/** inkwell.users.v1: the User and Follow resources, UsersService, and the users domain events. */
export * from './gen/inkwell/users/v1/users_pb.js';
export * from './gen/inkwell/users/v1/users_service_pb.js';
export * from './gen/inkwell/users/v1/events_pb.js';

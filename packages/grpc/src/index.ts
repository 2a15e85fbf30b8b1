export { callerFromMetadata, callerToMetadata, type CallerContext } from './caller-context.js';
export { createGrpcClient, type CallOptions, type GrpcClient, type GrpcClientOptions } from './client.js';
export { createMethodDefinition, createServiceDefinition, methodPath, type UnaryMethodName } from './definition.js';
export { appErrorToGrpcStatus, grpcErrorToAppError, type GrpcErrorStatus } from './errors.js';
export { HealthStatus } from './health.js';
export { createGrpcServer, GrpcServer, type GrpcServerOptions, type HandlerContext, type ServiceImpl } from './server.js';
export { Metadata, status, type ChannelOptions } from '@grpc/grpc-js';

export { ASSERTION_METADATA_KEY, AssertionSigner, AssertionVerifier, MAX_LIFETIME_SECONDS, type AssertionSignerOptions, type AssertionVerifierOptions, type TrustedKeys, type VerifiedAssertion } from './assertion.js';
export type { CallerContext } from './caller-context.js';
export { createInternalAuth, type InternalAuth, type InternalAuthSettings } from './internal-auth.js';
export { createGrpcClient, grpcTarget, type CallOptions, type GrpcClient, type GrpcClientOptions } from './client.js';
export { createMethodDefinition, createServiceDefinition, methodPath, type UnaryMethodName } from './definition.js';
export { appErrorToGrpcStatus, grpcErrorToAppError, type GrpcErrorStatus } from './errors.js';
export { HealthStatus } from './health.js';
export { createGrpcServer, GrpcServer, type AddServiceOptions, type GrpcServerOptions, type HandlerContext, type IssuerTable, type ServiceImpl } from './server.js';
export { Metadata, status, type ChannelOptions } from '@grpc/grpc-js';

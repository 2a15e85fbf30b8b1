/** The standard gRPC health checking protocol, served by every Inkwell service. */
export * from './gen/grpc/health/v1/health_pb.js';

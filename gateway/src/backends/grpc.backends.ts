import { createGrpcClient, type GrpcClient } from '@inkwell/grpc';
import { UsersService } from '@inkwell/proto/users';
import type { GatewayConfig } from '../config.js';

/** One gRPC client (one channel) per backend, shared by every request. */
export interface GrpcBackends {
  readonly users: GrpcClient<typeof UsersService>;
}

/** Creates the clients of every configured backend. Connecting is lazy: a backend that is down fails calls and readiness, not startup. */
export function createGrpcBackends(config: GatewayConfig): GrpcBackends {
  const options = { defaultDeadlineMs: config.grpcDeadlineMs };
  return {
    users: createGrpcClient(UsersService, config.backends.users, options),
  };
}

/** Closes every channel (at shutdown). */
export function closeGrpcBackends(backends: GrpcBackends): void {
  for (const client of Object.values(backends)) client.close();
}

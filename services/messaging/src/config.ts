import { z } from 'zod';
import { databaseEnv, grpcHealthEnv, grpcTlsEnv, internalAuthEnv, isolationEnv, kafkaEnv, loadConfig, markdownEnv, metricsEnv, refineGrpcTlsEnv, refineKafkaEnv } from '@inkwell/config';

const hostPort = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, 'expected host:port');

const schema = z.object({
  ...isolationEnv,
  ...internalAuthEnv,
  /** gRPC over TLS and the plaintext health port (docs/api/foundation.md, "Internal calls"); unset locally. */
  ...grpcTlsEnv,
  ...grpcHealthEnv,
  ...markdownEnv,
  ...databaseEnv,
  ...kafkaEnv,
  MESSAGING_GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  MESSAGING_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50055),
  /** Port of GET /metrics (docs/api/foundation.md, "Service metrics"); 0 turns it off. */
  ...metricsEnv('MESSAGING', 9155),
  USERS_SERVICE_ADDR: hostPort.default('127.0.0.1:50051'),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
}).superRefine(refineKafkaEnv).superRefine(refineGrpcTlsEnv);

/** Configuration of the messaging service, parsed once from the environment at boot. */
export type MessagingConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadMessagingConfig(env: NodeJS.ProcessEnv = process.env): MessagingConfig {
  return loadConfig(schema, env);
}

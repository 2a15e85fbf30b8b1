import { z } from 'zod';
import { databaseEnv, envFlag, grpcHealthEnv, grpcTlsEnv, internalAuthEnv, isolationEnv, kafkaEnv, loadConfig, markdownEnv, metricsEnv, redisEnv, refineGrpcTlsEnv, refineKafkaEnv, refineRedisEnv } from '@inkwell/config';

const schema = z.object({
  ...isolationEnv,
  ...internalAuthEnv,
  /** gRPC over TLS and the plaintext health port (docs/api/foundation.md, "Internal calls"); unset locally. */
  ...grpcTlsEnv,
  ...grpcHealthEnv,
  ...markdownEnv,
  ...databaseEnv,
  ...redisEnv,
  ...kafkaEnv,
  USERS_GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  USERS_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50051),
  /** Port of GET /metrics (docs/api/foundation.md, "Service metrics"); 0 turns it off. */
  ...metricsEnv('USERS', 9151),
  SEED_DEMO_DATA: envFlag.default(false),
  /** Where the demo seed writes the demo token and app credentials (`npm run dev` prints them). */
  DEMO_CREDENTIALS_FILE: z.string().min(1).optional(),
}).superRefine(refineKafkaEnv).superRefine(refineGrpcTlsEnv).superRefine(refineRedisEnv);

/** Configuration of the users service, parsed once from the environment at boot. */
export type UsersConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadUsersConfig(env: NodeJS.ProcessEnv = process.env): UsersConfig {
  return loadConfig(schema, env);
}

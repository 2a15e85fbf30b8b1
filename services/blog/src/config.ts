import { z } from 'zod';
import { databaseEnv, grpcHealthEnv, grpcTlsEnv, internalAuthEnv, isolationEnv, kafkaEnv, loadConfig, markdownEnv, metricsEnv, redisEnv, refineGrpcTlsEnv, refineKafkaEnv, refineRedisEnv } from '@inkwell/config';

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
  BLOG_GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  BLOG_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50054),
  /** Port of GET /metrics (docs/api/foundation.md, "Service metrics"); 0 turns it off. */
  ...metricsEnv('BLOG', 9154),
}).superRefine(refineKafkaEnv).superRefine(refineGrpcTlsEnv).superRefine(refineRedisEnv);

/** Configuration of the blog service, parsed once from the environment at boot. */
export type BlogConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadBlogConfig(env: NodeJS.ProcessEnv = process.env): BlogConfig {
  return loadConfig(schema, env);
}

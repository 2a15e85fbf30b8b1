import { z } from 'zod';
import { databaseEnv, envFlag, grpcHealthEnv, grpcTlsEnv, internalAuthEnv, isolationEnv, kafkaEnv, loadConfig, metricsEnv, refineGrpcTlsEnv, refineKafkaEnv } from '@inkwell/config';

const hostPort = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, 'expected host:port');

const schema = z.object({
  ...isolationEnv,
  ...internalAuthEnv,
  /** gRPC over TLS and the plaintext health port (docs/api/foundation.md, "Internal calls"); unset locally. */
  ...grpcTlsEnv,
  ...grpcHealthEnv,
  ...databaseEnv,
  ...kafkaEnv,
  BOOKSHELVES_GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  BOOKSHELVES_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50053),
  /** Port of GET /metrics (docs/api/foundation.md, "Service metrics"); 0 turns it off. */
  ...metricsEnv('BOOKSHELVES', 9153),
  /** Where the stories service is: adding an item asks it whether the story exists and is visible. */
  STORIES_SERVICE_ADDR: hostPort.default('127.0.0.1:50052'),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
  /** Gives the demo users a few shelves at start (idempotent). */
  SEED_DEMO_DATA: envFlag.default(false),
}).superRefine(refineKafkaEnv).superRefine(refineGrpcTlsEnv);

/** Configuration of the bookshelves service, parsed once from the environment at boot. */
export type BookshelvesConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadBookshelvesConfig(env: NodeJS.ProcessEnv = process.env): BookshelvesConfig {
  return loadConfig(schema, env);
}

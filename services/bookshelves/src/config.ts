import { z } from 'zod';
import { internalAuthEnv, isolationEnv, loadConfig } from '@inkwell/config';

const hostPort = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, 'expected host:port');
const booleanFlag = z.enum(['true', 'false', '1', '0']).default('false').transform((value) => value === 'true' || value === '1');

const schema = z.object({
  ...isolationEnv,
  ...internalAuthEnv,
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:19092').transform((value) => value.split(',').map((broker) => broker.trim())),
  BOOKSHELVES_GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  BOOKSHELVES_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50053),
  /** Where the stories service is: adding an item asks it whether the story exists and is visible. */
  STORIES_SERVICE_ADDR: hostPort.default('127.0.0.1:50052'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
  /** Gives the demo users a few shelves at start (idempotent). */
  SEED_DEMO_DATA: booleanFlag,
});

/** Configuration of the bookshelves service, parsed once from the environment at boot. */
export type BookshelvesConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadBookshelvesConfig(env: NodeJS.ProcessEnv = process.env): BookshelvesConfig {
  return loadConfig(schema, env);
}

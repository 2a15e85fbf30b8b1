import { z } from 'zod';
import { envFlag, loadConfig, serviceAddress, serviceEnv } from '@inkwell/config';

const schema = serviceEnv('BOOKSHELVES', { grpc: 50053, metrics: 9153 }, { redis: false, markdown: false }, {
  /** Where the stories service is: adding an item asks it whether the story exists and is visible. */
  STORIES_SERVICE_ADDR: serviceAddress.default('127.0.0.1:50052'),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
  /** Gives the demo users a few shelves at start (idempotent). */
  SEED_DEMO_DATA: envFlag.default(false),
});

/** Configuration of the bookshelves service, parsed once from the environment at boot. */
export type BookshelvesConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadBookshelvesConfig(env: NodeJS.ProcessEnv = process.env): BookshelvesConfig {
  return loadConfig(schema, env);
}

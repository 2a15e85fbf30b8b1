import { z } from 'zod';
import { envFlag, loadConfig, serviceEnv } from '@inkwell/config';

const schema = serviceEnv('USERS', { grpc: 50051, metrics: 9151 }, { redis: true, markdown: true }, {
  SEED_DEMO_DATA: envFlag.default(false),
  /** Where the demo seed writes the demo token and app credentials (`npm run dev` prints them). */
  DEMO_CREDENTIALS_FILE: z.string().min(1).optional(),
});

/** Configuration of the users service, parsed once from the environment at boot. */
export type UsersConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadUsersConfig(env: NodeJS.ProcessEnv = process.env): UsersConfig {
  return loadConfig(schema, env);
}

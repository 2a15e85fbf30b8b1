import { z } from 'zod';
import { envFlag, loadConfig, serviceEnv } from '@inkwell/config';

const schema = serviceEnv('USERS', { grpc: 50051, metrics: 9151 }, { redis: true, markdown: true }, {
  SEED_DEMO_DATA: envFlag.default(false),
  /** Where the demo seed writes the demo token and app credentials (`npm run dev` prints them). */
  DEMO_CREDENTIALS_FILE: z.string().min(1).optional(),
  /**
   * The gateway's public base URL (its PUBLIC_BASE_URL): the redirect URI of the API reference
   * page's OAuth client derives from it (docs/api/reference.md, "Try it: Authorize"). The default
   * is the gateway's own default, http://127.0.0.1:8080.
   */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .refine((value) => !/[?#]/.test(value), 'must not contain a query or fragment')
    .transform((value) => value.replace(/\/+$/, ''))
    .default('http://127.0.0.1:8080'),
});

/** Configuration of the users service, parsed once from the environment at boot. */
export type UsersConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadUsersConfig(env: NodeJS.ProcessEnv = process.env): UsersConfig {
  return loadConfig(schema, env);
}

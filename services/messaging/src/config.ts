import { z } from 'zod';
import { loadConfig, serviceAddress, serviceEnv } from '@inkwell/config';

const schema = serviceEnv('MESSAGING', { grpc: 50055, metrics: 9155 }, { redis: true, markdown: true }, {
  USERS_SERVICE_ADDR: serviceAddress.default('127.0.0.1:50051'),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
  // Recipients per committed chunk of a notification fan-out (docs/api/updates.md, "Fan-out model").
  NOTIFICATION_FANOUT_CHUNK: z.coerce.number().int().min(100).max(50_000).default(10_000),
  // Fan-out chunks one process runs at the same time, each on a pool connection.
  NOTIFICATION_FANOUT_WORKERS: z.coerce.number().int().min(1).max(8).default(2),
});

/** Configuration of the messaging service, parsed once from the environment at boot. */
export type MessagingConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadMessagingConfig(env: NodeJS.ProcessEnv = process.env): MessagingConfig {
  return loadConfig(schema, env);
}

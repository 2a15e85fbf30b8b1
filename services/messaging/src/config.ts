import { z } from 'zod';
import { internalAuthEnv, isolationEnv, loadConfig, markdownEnv } from '@inkwell/config';

const hostPort = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, 'expected host:port');

const schema = z.object({
  ...isolationEnv,
  ...internalAuthEnv,
  ...markdownEnv,
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:19092').transform((value) => value.split(',').map((broker) => broker.trim())),
  MESSAGING_GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  MESSAGING_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50055),
  USERS_SERVICE_ADDR: hostPort.default('127.0.0.1:50051'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
});

/** Configuration of the messaging service, parsed once from the environment at boot. */
export type MessagingConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadMessagingConfig(env: NodeJS.ProcessEnv = process.env): MessagingConfig {
  return loadConfig(schema, env);
}

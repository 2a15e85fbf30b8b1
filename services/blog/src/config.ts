import { z } from 'zod';
import { internalAuthEnv, isolationEnv, loadConfig, markdownEnv } from '@inkwell/config';

const schema = z.object({
  ...isolationEnv,
  ...internalAuthEnv,
  ...markdownEnv,
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:19092').transform((value) => value.split(',').map((broker) => broker.trim())),
  BLOG_GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  BLOG_GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50054),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
});

/** Configuration of the blog service, parsed once from the environment at boot. */
export type BlogConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadBlogConfig(env: NodeJS.ProcessEnv = process.env): BlogConfig {
  return loadConfig(schema, env);
}

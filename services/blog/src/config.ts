import type { z } from 'zod';
import { loadConfig, serviceEnv } from '@inkwell/config';

const schema = serviceEnv('BLOG', { grpc: 50054, metrics: 9154 }, { redis: true, markdown: true }, {});

/** Configuration of the blog service, parsed once from the environment at boot. */
export type BlogConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadBlogConfig(env: NodeJS.ProcessEnv = process.env): BlogConfig {
  return loadConfig(schema, env);
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { loadConfig, redisEnv, refineRedisEnv } from '@inkwell/config';

const schema = z
  .object({
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
    // The same Redis variables as the service (docs/api/foundation.md, "Stores and least privilege").
    ...redisEnv,
  })
  .superRefine(refineRedisEnv);

/** What the operator CLI connects to. */
export type CliConfig = z.output<typeof schema>;

/**
 * DATABASE_URL and REDIS_URL (with REDIS_TLS_CA_FILE) from the environment; on a developer machine, values missing there
 * are taken from `.stack/env` (written by `npm run stack`) in the repository root above `from`.
 */
export function loadCliConfig(env: NodeJS.ProcessEnv = process.env, from: string = process.cwd()): CliConfig {
  return loadConfig(schema, { ...readStackEnv(from), ...definedOnly(env) });
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''));
}

function readStackEnv(from: string): Record<string, string> {
  let dir = from;
  while (!existsSync(join(dir, 'turbo.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return {};
    dir = parent;
  }
  const file = join(dir, '.stack', 'env');
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^(DATABASE_URL|REDIS_URL)=(.+)$/.exec(line.trim());
    if (match?.[1] && match[2]) values[match[1]] = match[2];
  }
  return values;
}

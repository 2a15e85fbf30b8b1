import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { loadConfig } from '@inkwell/config';

const schema = z.object({
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
});

/** What the blog operator CLI connects to. */
export type BlogCliConfig = z.output<typeof schema>;

/**
 * DATABASE_URL from the environment; on a developer machine, when it is missing there, from
 * `.stack/env` (written by `npm run stack`) in the repository root above `from`. Same rule as
 * the users CLI (`npm run cli`).
 */
export function loadBlogCliConfig(env: NodeJS.ProcessEnv = process.env, from: string = process.cwd()): BlogCliConfig {
  const fromEnv = env.DATABASE_URL;
  return loadConfig(schema, { DATABASE_URL: fromEnv !== undefined && fromEnv !== '' ? fromEnv : stackDatabaseUrl(from) });
}

function stackDatabaseUrl(from: string): string | undefined {
  let dir = from;
  while (!existsSync(join(dir, 'turbo.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  const file = join(dir, '.stack', 'env');
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^DATABASE_URL=(.+)$/.exec(line.trim());
    if (match?.[1]) return match[1];
  }
  return undefined;
}

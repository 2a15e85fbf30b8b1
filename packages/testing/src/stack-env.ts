import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the real backing stores of a test run are. */
export interface StackEnv {
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string[];
  /** Base URL of the OpenSearch node, e.g. http://127.0.0.1:19200 (docs/api/foundation.md). */
  opensearchUrl: string;
}

/** The repository root: the nearest ancestor of `from` holding turbo.json. */
export function repoRoot(from: string = process.cwd()): string {
  let dir = from;
  while (!existsSync(join(dir, 'turbo.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no turbo.json above ${from}`);
    dir = parent;
  }
  return dir;
}

function readStackFile(root: string): Record<string, string> {
  const file = join(root, '.stack', 'env');
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] && match[2] !== undefined) values[match[1]] = match[2];
  }
  return values;
}

/**
 * The stack of this test run: DATABASE_URL / REDIS_URL / KAFKA_BROKERS / OPENSEARCH_URL when set, else what
 * `tools/stack/up.sh` recorded in `.stack/env`, else the local defaults of this machine kind.
 */
export function stackEnv(): StackEnv {
  const file = readStackFile(repoRoot());
  const pick = (name: string, fallback: string) => process.env[name] ?? file[name] ?? fallback;
  return {
    databaseUrl: pick('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/inkwell'),
    redisUrl: pick('REDIS_URL', 'redis://127.0.0.1:6379'),
    kafkaBrokers: pick('KAFKA_BROKERS', '127.0.0.1:19092').split(',').map((broker) => broker.trim()).filter(Boolean),
    opensearchUrl: pick('OPENSEARCH_URL', 'http://127.0.0.1:19200').replace(/\/+$/, ''),
  };
}

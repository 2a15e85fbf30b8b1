import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@inkwell/testing';

/** Databases whose schemas this process has already brought up to date. */
const migrated = new Set<string>();

/**
 * Runs the data generator (tools/seed, `npm run seed`) against the benchmark database with
 * `args`, its output shown; throws when it fails.
 */
export function runSeed(databaseUrl: string, args: readonly string[]): void {
  const database = new URL(databaseUrl).pathname.slice(1);
  const root = repoRoot();
  execFileSync(process.execPath, ['--conditions=@inkwell/source', '--import', 'tsx', join(root, 'tools/seed/src/main.ts'), ...args, '--database', database], {
    cwd: root,
    stdio: 'inherit',
  });
}

/**
 * Brings every schema the suites read up to date with the services' own migrations (the seed's
 * `--migrate-only`), once per run, so a suite can count its data in an empty database.
 */
export function migrateSchemas(databaseUrl: string): void {
  if (migrated.has(databaseUrl)) return;
  runSeed(databaseUrl, ['--migrate-only']);
  migrated.add(databaseUrl);
}

/** `count` scaled, at least `minimum`. */
export function scaled(count: number, scale: number, minimum = 1): number {
  return Math.max(minimum, Math.round(count * scale));
}

import { ConfigError, redisSettings } from '@inkwell/config';
import { isAppError } from '@inkwell/errors';
import { eventsMigrations } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { createPool, migrate } from '@inkwell/pg';
import { createRedis } from '@inkwell/redis';
import { USERS_MIGRATIONS, USERS_SCHEMA } from '../schema.js';
import { createUsersServices } from '../services.js';
import { loadCliConfig } from './cli.config.js';
import { parseCommandLine, runCommand, USAGE, UsageError, type ParsedCommand } from './cli.commands.js';

/**
 * `npm run cli -- <command>`: the operator CLI, a second composition root of the users service.
 * It works on the users database directly through the same services (so the same rules) rather
 * than over gRPC, so it also works before the service runs (bootstrapping the first user or app)
 * and needs no operator-only RPCs; revocations still reach every gateway through Redis.
 */
async function main(argv: readonly string[]): Promise<number> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    return usageFailure(error);
  }
  if (parsed.command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const logger = createLogger('users-cli', { level: process.env.LOG_LEVEL ?? 'warn' });
  const config = loadCliConfig();
  const pool = createPool({ connectionString: config.DATABASE_URL, schema: USERS_SCHEMA, max: 2, applicationName: 'inkwell-cli', logger });
  const redis = createRedis(redisSettings(config), {}, logger);
  try {
    await migrate(pool, { schema: USERS_SCHEMA, directory: USERS_MIGRATIONS, extra: eventsMigrations, logger });
    const result = await runCommand(createUsersServices(pool, redis, logger), parsed);
    process.stdout.write(parsed.json ? `${JSON.stringify(result.json)}\n` : `${result.lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error);
    if (isAppError(error)) {
      const problems = error.details.map((detail) => [detail.pointer?.replace('/data/attributes/', '--'), detail.detail].filter(Boolean).join(': ')).filter((line) => line !== '');
      process.stderr.write(`Refused: ${error.message}\n${problems.length > 1 ? `${problems.map((line) => `  ${line}`).join('\n')}\n` : ''}`);
      return 1;
    }
    throw error;
  } finally {
    redis.disconnect();
    await pool.end();
  }
}

function usageFailure(error: unknown): number {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\nRun "npm run cli -- help" for usage.\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `Failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

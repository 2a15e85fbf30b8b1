import { fileURLToPath } from 'node:url';
import { createKafka, eventsMigrations, OutboxRelay } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { createPool, migrate } from '@inkwell/pg';
import { loadUsersConfig } from './config.js';
import { UserRepository } from './repositories/user.repository.js';
import { seedDemoUsers } from './seed.js';
import { createUsersServer } from './server.js';
import { UserService } from './services/user.service.js';

const SCHEMA = 'users';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));

/** Composition root of the users service: config → pool → repositories → services → server. */
async function main(): Promise<void> {
  const logger = createLogger('users');
  const config = loadUsersConfig();
  const pool = createPool({ connectionString: config.DATABASE_URL, schema: SCHEMA, max: config.DATABASE_POOL_SIZE, applicationName: 'inkwell-users', logger });
  await migrate(pool, { schema: SCHEMA, directory: MIGRATIONS, extra: eventsMigrations, logger });

  const users = new UserService(new UserRepository(pool));
  if (config.SEED_DEMO_DATA) await seedDemoUsers(users, logger);

  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: 'inkwell-users', logger });
  const relay = new OutboxRelay({ pool, kafka, schema: SCHEMA, logger });
  await relay.start();

  const server = createUsersServer({ logger, users });
  const port = await server.listen(`${config.USERS_GRPC_HOST}:${config.USERS_GRPC_PORT}`);
  logger.info({ port }, 'users service listening');

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await server.shutdown(5_000);
    await relay.stop();
    await pool.end();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  createLogger('users').fatal({ err: error }, 'users service failed to start');
  process.exit(1);
});

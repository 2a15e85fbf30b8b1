import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { grpcTlsSettings, internalAuthSettings, kafkaSettings, redisSettings } from '@inkwell/config';
import { createKafka, eventsMigrations, OutboxRelay, registerEventMetrics, startEventWork } from '@inkwell/events';
import { createInternalAuth, createMetricsRegistry, serveMetrics, serviceClosers, shutdownOnSignals } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { closeMarkdown, configureMarkdown } from '@inkwell/markdown';
import { createPool, migrateSchema } from '@inkwell/pg';
import { Topics } from '@inkwell/proto/topics';
import { createRedis } from '@inkwell/redis';
import { loadUsersConfig } from './config.js';
import { createAuthoredContentConsumer } from './consumers/authored-content.consumer.js';
import { RedisRevocationNotifier } from './repositories/revocation.notifier.js';
import { seedDemoData } from './seed.js';
import { createUsersServer } from './server.js';
import { createUsersServices } from './services.js';

const SCHEMA = 'users';
const MIGRATIONS = fileURLToPath(new URL('../migrations', import.meta.url));
/** How often idle sign-in back-off counters, and long-inactive tokens and codes, are deleted. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

/** Composition root of the users service: config → pool → repositories → services → server. */
async function main(): Promise<void> {
  const logger = createLogger('users');
  const config = loadUsersConfig();
  // gRPC over TLS when configured (docs/api/foundation.md, "Internal calls"): the server and every client of this process.
  const tls = grpcTlsSettings(config);
  configureMarkdown({ workers: config.MARKDOWN_RENDER_WORKERS, deadlineMs: config.MARKDOWN_RENDER_DEADLINE_MS, memoryMb: config.MARKDOWN_RENDER_MEMORY_MB, textsPerCaller: config.MARKDOWN_RENDER_TEXTS_PER_CALLER });
  // Migrations run as the schema's owner, the service as its runtime role (docs/api/foundation.md, "Stores and least privilege").
  await migrateSchema(config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL, { schema: SCHEMA, directory: MIGRATIONS, extra: eventsMigrations, logger, applicationName: 'inkwell-users-migrate' });
  const pool = createPool({ connectionString: config.DATABASE_URL, schema: SCHEMA, max: config.DATABASE_POOL_SIZE, applicationName: 'inkwell-users', logger });
  const redis = createRedis(redisSettings(config), { keyPrefix: config.REDIS_KEY_PREFIX }, logger);

  const services = createUsersServices(pool, new RedisRevocationNotifier(redis, logger));
  if (config.SEED_DEMO_DATA) {
    const credentials = await seedDemoData(services, logger);
    if (config.DEMO_CREDENTIALS_FILE !== undefined) {
      await mkdir(dirname(config.DEMO_CREDENTIALS_FILE), { recursive: true });
      await writeFile(config.DEMO_CREDENTIALS_FILE, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    }
  }
  const prune = setInterval(() => {
    services.accounts.pruneSignInCounters().catch((error: unknown) => logger.warn({ err: error }, 'could not prune sign-in counters'));
    services.tokens.pruneInactive().then(
      (pruned) => logger.debug({ pruned }, 'pruned inactive tokens and codes'),
      (error: unknown) => logger.warn({ err: error }, 'could not prune inactive tokens and codes'),
    );
  }, PRUNE_INTERVAL_MS);
  prune.unref();

  const kafka = createKafka({ ...kafkaSettings(config), clientId: 'inkwell-users', logger, namespace: config.KAFKA_NAMESPACE });
  const metrics = createMetricsRegistry();
  const eventMetrics = registerEventMetrics({ registry: metrics, pool, schema: SCHEMA, kafka, logger });
  const relay = new OutboxRelay({ pool, kafka, schema: SCHEMA, logger });
  const authoredContent = createAuthoredContentConsumer({ kafka, pool, logger });

  await services.accounts.prepare();
  const { verifier } = createInternalAuth('users', internalAuthSettings(config));
  const server = createUsersServer({ logger, services, verifier, metrics });
  const port = await server.listen(`${config.USERS_GRPC_HOST}:${config.USERS_GRPC_PORT}`, { tls, healthPort: config.GRPC_HEALTH_PORT });
  const metricsServer = await serveMetrics({ registry: metrics, port: config.USERS_METRICS_PORT, host: config.USERS_GRPC_HOST, logger });
  logger.info({ port, metricsPort: metricsServer.port }, 'users service listening');

  // After listening, in the background: Kafka being down only delays events and derived values
  // (docs/api/foundation.md, "Service start-up and readiness").
  const events = startEventWork({ kafka, logger, topics: [Topics.usersUser, Topics.usersFollow], relay, consumers: [authoredContent] });

  shutdownOnSignals({
    logger,
    closers: serviceClosers(
      { server, events, metricsServer, eventMetrics, pool },
      {
        beforeServer: [{ name: 'pruning', close: () => clearInterval(prune) }],
        beforePool: [{ name: 'redis', close: () => redis.disconnect() }],
        afterPool: [{ name: 'markdown workers', close: () => closeMarkdown() }],
      },
    ),
  });
}

main().catch((error: unknown) => {
  createLogger('users').fatal({ err: error }, 'users service failed to start');
  process.exit(1);
});

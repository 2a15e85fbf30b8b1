import { grpcTlsSettings, internalAuthSettings, kafkaSettings } from '@inkwell/config';
import { createKafka, eventsMigrations, OutboxRelay, registerEventMetrics, startEventWork } from '@inkwell/events';
import { createGrpcClient, createInternalAuth, createMetricsRegistry, serveMetrics, serviceClosers, shutdownOnSignals } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { closeMarkdown, configureMarkdown } from '@inkwell/markdown';
import { createPool, migrateSchema } from '@inkwell/pg';
import { Topics } from '@inkwell/proto/topics';
import { UsersService } from '@inkwell/proto/users';
import { loadMessagingConfig } from './config.js';
import { PrivateMessageRepository } from './repositories/private-message.repository.js';
import { UserDirectoryRepository } from './repositories/user-directory.repository.js';
import { MESSAGING_MIGRATIONS, MESSAGING_SCHEMA } from './schema.js';
import { createMessagingServer } from './server.js';
import { PrivateMessageService } from './services/private-message.service.js';


/** Composition root of the messaging service: config → pool, users client → repositories → services → server. */
async function main(): Promise<void> {
  const logger = createLogger('messaging');
  const config = loadMessagingConfig();
  // gRPC over TLS when configured (docs/api/foundation.md, "Internal calls"): the server and every client of this process.
  const tls = grpcTlsSettings(config);
  const auth = createInternalAuth('messaging', internalAuthSettings(config));
  configureMarkdown({ workers: config.MARKDOWN_RENDER_WORKERS, deadlineMs: config.MARKDOWN_RENDER_DEADLINE_MS, memoryMb: config.MARKDOWN_RENDER_MEMORY_MB, textsPerCaller: config.MARKDOWN_RENDER_TEXTS_PER_CALLER });
  // Migrations run as the schema's owner, the service as its runtime role (docs/api/foundation.md, "Stores and least privilege").
  await migrateSchema(config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL, { schema: MESSAGING_SCHEMA, directory: MESSAGING_MIGRATIONS, extra: eventsMigrations, logger, applicationName: 'inkwell-messaging-migrate' });
  const pool = createPool({ connectionString: config.DATABASE_URL, schema: MESSAGING_SCHEMA, max: config.DATABASE_POOL_SIZE, applicationName: 'inkwell-messaging', logger, settings: { jit: 'off' } });

  const usersClient = createGrpcClient(UsersService, config.USERS_SERVICE_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS, signer: auth.signer, tls });
  const messages = new PrivateMessageService(new PrivateMessageRepository(pool), new UserDirectoryRepository(usersClient));

  const kafka = createKafka({ ...kafkaSettings(config), clientId: 'inkwell-messaging', logger, namespace: config.KAFKA_NAMESPACE });
  const metrics = createMetricsRegistry();
  const eventMetrics = registerEventMetrics({ registry: metrics, pool, schema: MESSAGING_SCHEMA, kafka, logger });
  const relay = new OutboxRelay({ pool, kafka, schema: MESSAGING_SCHEMA, logger });

  const server = createMessagingServer({ logger, verifier: auth.verifier, metrics, messages });
  const port = await server.listen(`${config.MESSAGING_GRPC_HOST}:${config.MESSAGING_GRPC_PORT}`, { tls, healthPort: config.GRPC_HEALTH_PORT });
  const metricsServer = await serveMetrics({ registry: metrics, port: config.MESSAGING_METRICS_PORT, host: config.MESSAGING_GRPC_HOST, logger });
  logger.info({ port, metricsPort: metricsServer.port }, 'messaging service listening');

  // After listening, in the background: Kafka being down only delays events and derived values
  // (docs/api/foundation.md, "Service start-up and readiness").
  const events = startEventWork({ kafka, logger, topics: [Topics.messagingMessage], relay, consumers: [] });

  shutdownOnSignals({
    logger,
    closers: serviceClosers(
      { server, events, metricsServer, eventMetrics, pool },
      {
        beforePool: [{ name: 'users client', close: () => usersClient.close() }],
        afterPool: [{ name: 'markdown workers', close: () => closeMarkdown() }],
      },
    ),
  });
}

main().catch((error: unknown) => {
  createLogger('messaging').fatal({ err: error }, 'messaging service failed to start');
  process.exit(1);
});

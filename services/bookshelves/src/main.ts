import { grpcTlsSettings, internalAuthSettings, kafkaSettings } from '@inkwell/config';
import { createKafka, OutboxRelay, registerEventMetrics, startEventWork } from '@inkwell/events';
import { createGrpcClient, createInternalAuth, createMetricsRegistry, serveMetrics, serviceClosers, shutdownOnSignals } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { StoriesService } from '@inkwell/proto/stories';
import { Topics } from '@inkwell/proto/topics';
import { loadBookshelvesConfig } from './config.js';
import { createStoryConsumer } from './consumers/story.consumer.js';
import { BOOKSHELVES_SCHEMA, openBookshelvesDatabase } from './database.js';
import { BookshelfItemRepository } from './repositories/bookshelf-item.repository.js';
import { BookshelfRepository } from './repositories/bookshelf.repository.js';
import { StoryDirectoryRepository } from './repositories/story-directory.repository.js';
import { seedDemoBookshelvesWhenListed } from './seed/demo.seed.js';
import { createBookshelvesServer } from './server.js';
import { BookshelfItemService } from './services/bookshelf-item.service.js';
import { BookshelfService } from './services/bookshelf.service.js';

/**
 * Composition root of the bookshelves service: config → pool (migrated), stories client →
 * repositories → services → gRPC server; the outbox relay publishes bookshelves.bookshelf.v1 and
 * bookshelves.item.v1, and the stories consumer keeps the copy of the stories.
 */
async function main(): Promise<void> {
  const logger = createLogger('bookshelves');
  const config = loadBookshelvesConfig();
  // gRPC over TLS when configured (docs/api/foundation.md, "Internal calls"): the server and every client of this process.
  const tls = grpcTlsSettings(config);
  const auth = createInternalAuth('bookshelves', internalAuthSettings(config));
  const pool = await openBookshelvesDatabase({ connectionString: config.DATABASE_URL, migrationConnectionString: config.DATABASE_MIGRATION_URL, max: config.DATABASE_POOL_SIZE, logger });
  const storiesClient = createGrpcClient(StoriesService, config.STORIES_SERVICE_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS, signer: auth.signer, tls });

  const shelfRepository = new BookshelfRepository(pool);
  const storyDirectory = new StoryDirectoryRepository(storiesClient);
  const shelves = new BookshelfService(shelfRepository);
  const items = new BookshelfItemService({ shelves: shelfRepository, items: new BookshelfItemRepository(pool), stories: storyDirectory });

  const kafka = createKafka({ ...kafkaSettings(config), clientId: 'inkwell-bookshelves', logger, namespace: config.KAFKA_NAMESPACE });
  const metrics = createMetricsRegistry();
  const eventMetrics = registerEventMetrics({ registry: metrics, pool, schema: BOOKSHELVES_SCHEMA, kafka, logger });
  const relay = new OutboxRelay({ pool, kafka, schema: BOOKSHELVES_SCHEMA, logger });
  const stories = createStoryConsumer({ kafka, pool, logger });

  const server = createBookshelvesServer({ logger, verifier: auth.verifier, metrics, shelves, items });
  const port = await server.listen(`${config.BOOKSHELVES_GRPC_HOST}:${config.BOOKSHELVES_GRPC_PORT}`, { tls, healthPort: config.GRPC_HEALTH_PORT });
  const metricsServer = await serveMetrics({ registry: metrics, port: config.BOOKSHELVES_METRICS_PORT, host: config.BOOKSHELVES_GRPC_HOST, logger });
  logger.info({ port, metricsPort: metricsServer.port }, 'bookshelves service listening');

  // After listening, in the background: Kafka being down only delays events and derived values
  // (docs/api/foundation.md, "Service start-up and readiness").
  const events = startEventWork({ kafka, logger, topics: [Topics.bookshelvesBookshelf, Topics.bookshelvesItem], relay, consumers: [stories] });

  if (config.SEED_DEMO_DATA) {
    // In the background: demo data never holds up or stops the service (the API works without it).
    void seedDemoBookshelvesWhenListed({ shelves, items, stories: storyDirectory, logger });
  }

  shutdownOnSignals({
    logger,
    closers: serviceClosers(
      { server, events, metricsServer, eventMetrics, pool },
      { beforePool: [{ name: 'stories client', close: () => storiesClient.close() }] },
    ),
  });
}

main().catch((error: unknown) => {
  createLogger('bookshelves').fatal({ err: error }, 'bookshelves service failed to start');
  process.exit(1);
});

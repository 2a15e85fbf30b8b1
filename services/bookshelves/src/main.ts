import { internalAuthSettings, kafkaSettings } from '@inkwell/config';
import { createKafka, ensureTopics, OutboxRelay, registerEventMetrics } from '@inkwell/events';
import { createGrpcClient, createInternalAuth, createMetricsRegistry, serveMetrics } from '@inkwell/grpc';
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
  const auth = createInternalAuth('bookshelves', internalAuthSettings(config));
  const pool = await openBookshelvesDatabase({ connectionString: config.DATABASE_URL, migrationConnectionString: config.DATABASE_MIGRATION_URL, max: config.DATABASE_POOL_SIZE, logger });
  const storiesClient = createGrpcClient(StoriesService, config.STORIES_SERVICE_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS, signer: auth.signer });

  const shelfRepository = new BookshelfRepository(pool);
  const storyDirectory = new StoryDirectoryRepository(storiesClient);
  const shelves = new BookshelfService(shelfRepository);
  const items = new BookshelfItemService({ shelves: shelfRepository, items: new BookshelfItemRepository(pool), stories: storyDirectory });

  const kafka = createKafka({ ...kafkaSettings(config), clientId: 'inkwell-bookshelves', logger, namespace: config.KAFKA_NAMESPACE });
  const metrics = createMetricsRegistry();
  const eventMetrics = registerEventMetrics({ registry: metrics, pool, schema: BOOKSHELVES_SCHEMA, kafka, logger });
  await ensureTopics(kafka, [Topics.bookshelvesBookshelf, Topics.bookshelvesItem, Topics.storiesStory]);
  const relay = new OutboxRelay({ pool, kafka, schema: BOOKSHELVES_SCHEMA, logger });
  await relay.start();
  const stories = createStoryConsumer({ kafka, pool, logger });
  await stories.start();

  const server = createBookshelvesServer({ logger, verifier: auth.verifier, metrics, shelves, items });
  const port = await server.listen(`${config.BOOKSHELVES_GRPC_HOST}:${config.BOOKSHELVES_GRPC_PORT}`);
  const metricsServer = await serveMetrics({ registry: metrics, port: config.BOOKSHELVES_METRICS_PORT, host: config.BOOKSHELVES_GRPC_HOST, logger });
  logger.info({ port, metricsPort: metricsServer.port }, 'bookshelves service listening');

  if (config.SEED_DEMO_DATA) {
    // In the background: demo data never holds up or stops the service (the API works without it).
    void seedDemoBookshelvesWhenListed({ shelves, items, stories: storyDirectory, logger });
  }

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await server.shutdown(5_000);
    await stories.stop();
    await relay.stop();
    await metricsServer.close();
    await eventMetrics.close();
    storiesClient.close();
    await pool.end();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  createLogger('bookshelves').fatal({ err: error }, 'bookshelves service failed to start');
  process.exit(1);
});

import { grpcTlsSettings, internalAuthSettings, kafkaSettings, redisSettings } from '@inkwell/config';
import { createKafka, eventsMigrations, OutboxRelay, registerEventMetrics, retryUntilDone, startEventWork } from '@inkwell/events';
import { createGrpcClient, createInternalAuth, createMetricsRegistry, serveMetrics, serviceClosers, shutdownOnSignals } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { closeMarkdown, configureMarkdown } from '@inkwell/markdown';
import { createPool, migrateSchema } from '@inkwell/pg';
import { Topics } from '@inkwell/proto/topics';
import { UsersService } from '@inkwell/proto/users';
import { createRedis } from '@inkwell/redis';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { loadStoriesConfig } from './config.js';
import { STORIES_MIGRATIONS as MIGRATIONS, STORIES_SCHEMA as SCHEMA } from './schema.js';
import { createBookshelfCopyConsumer } from './consumers/bookshelf-copy.consumer.js';
import { createStoryIndexConsumer } from './consumers/story-index.consumer.js';
import { createStoryStatsConsumer } from './consumers/story-stats.consumer.js';
import { BookshelfCopyRepository } from './repositories/bookshelf-copy.repository.js';
import { BulkLoadRepository } from './repositories/bulk-load.repository.js';
import { ChapterRepository } from './repositories/chapter.repository.js';
import { EngagementRepository } from './repositories/engagement.repository.js';
import { StoryDocumentRepository } from './repositories/story-document.repository.js';
import { StoryIndexRepository } from './repositories/story-index.repository.js';
import { StoryRepository } from './repositories/story.repository.js';
import { TagRepository } from './repositories/tag.repository.js';
import { ViewRepository } from './repositories/view.repository.js';
import { findDemoAuthors, seedDemoStories } from './seed/demo.seed.js';
import { createStoriesServer } from './server.js';
import { BookshelfCopyService } from './services/bookshelf-copy.service.js';
import { ChapterService } from './services/chapter.service.js';
import { EngagementService } from './services/engagement.service.js';
import { StoryIndexService } from './services/story-index.service.js';
import { StoryStatsService } from './services/story-stats.service.js';
import { StoryService } from './services/story.service.js';
import { TagService } from './services/tag.service.js';


/** Composition root of the stories service: config → pool, Redis, Kafka → repositories → services → server. */
async function main(): Promise<void> {
  const logger = createLogger('stories');
  const config = loadStoriesConfig();
  // gRPC over TLS when configured (docs/api/foundation.md, "Internal calls"): the server and every client of this process.
  const tls = grpcTlsSettings(config);
  const auth = createInternalAuth('stories', internalAuthSettings(config));
  configureMarkdown({ workers: config.MARKDOWN_RENDER_WORKERS, deadlineMs: config.MARKDOWN_RENDER_DEADLINE_MS, memoryMb: config.MARKDOWN_RENDER_MEMORY_MB, textsPerCaller: config.MARKDOWN_RENDER_TEXTS_PER_CALLER });
  // Migrations run as the schema's owner, the service as its runtime role (docs/api/foundation.md, "Stores and least privilege").
  const ownerUrl = config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL;
  await migrateSchema(ownerUrl, { schema: SCHEMA, directory: MIGRATIONS, extra: eventsMigrations, logger, applicationName: 'inkwell-stories-migrate' });
  const pool = createPool({ connectionString: config.DATABASE_URL, schema: SCHEMA, max: config.DATABASE_POOL_SIZE, applicationName: 'inkwell-stories', logger });
  const redis = createRedis(redisSettings(config), { keyPrefix: config.REDIS_KEY_PREFIX }, logger);

  const opensearch = new OpenSearchClient({ node: config.OPENSEARCH_URL, requestTimeout: config.STORY_SEARCH_TIMEOUT_MS, maxRetries: 1 });
  const storyIndex = new StoryIndexRepository(opensearch, config.OPENSEARCH_INDEX_PREFIX, {
    shards: config.STORY_INDEX_SHARDS,
    replicas: config.STORY_INDEX_REPLICAS,
    refreshInterval: config.STORY_INDEX_REFRESH_INTERVAL,
  }, { cacheTagCounts: config.STORY_TAG_COUNT_CACHE });
  const indexing = new StoryIndexService(new StoryDocumentRepository(pool), storyIndex, logger);

  const storyRepository = new StoryRepository(pool);
  const shelfCopy = new BookshelfCopyRepository(pool);
  const stories = new StoryService(storyRepository, new TagRepository(pool), shelfCopy, storyIndex);
  const chapters = new ChapterService(new ChapterRepository(pool), storyRepository, stories, new ViewRepository(redis), logger);
  const tags = new TagService(new TagRepository(pool));
  const engagement = new EngagementService(new EngagementRepository(pool), stories);
  if (config.SEED_DEMO_DATA) {
    const users = createGrpcClient(UsersService, config.USERS_SERVICE_ADDR, { defaultDeadlineMs: 2_000, signer: auth.signer, tls });
    // The bulk load stages rows in tables of its own: the schema's owner runs it, as the seed command does.
    const owner = createPool({ connectionString: ownerUrl, schema: SCHEMA, max: 2, applicationName: 'inkwell-stories-seed', logger });
    try {
      await seedDemoStories(new BulkLoadRepository(owner), await findDemoAuthors(users), config.DEMO_STORIES, logger);
    } finally {
      users.close();
      await owner.end();
    }
  }

  const kafka = createKafka({ ...kafkaSettings(config), clientId: 'inkwell-stories', logger, namespace: config.KAFKA_NAMESPACE });
  const metrics = createMetricsRegistry();
  const eventMetrics = registerEventMetrics({ registry: metrics, pool, schema: SCHEMA, kafka, logger });
  const relay = new OutboxRelay({ pool, kafka, schema: SCHEMA, logger });
  const consumers = [
    createStoryStatsConsumer({ kafka, pool, stats: new StoryStatsService(storyRepository), logger }),
    createBookshelfCopyConsumer({ kafka, pool, copy: new BookshelfCopyService(shelfCopy), logger }),
    createStoryIndexConsumer({ kafka, index: indexing, logger }),
  ];

  const server = createStoriesServer({ logger, verifier: auth.verifier, metrics, stories, chapters, tags, engagement });
  const port = await server.listen(`${config.STORIES_GRPC_HOST}:${config.STORIES_GRPC_PORT}`, { tls, healthPort: config.GRPC_HEALTH_PORT });
  const metricsServer = await serveMetrics({ registry: metrics, port: config.STORIES_METRICS_PORT, host: config.STORIES_GRPC_HOST, logger });
  logger.info({ port, metricsPort: metricsServer.port }, 'stories service listening');

  // After listening, in the background: Kafka being down (or a consumer group waiting for a
  // crashed member's session to expire) only delays derived values (docs/api/foundation.md,
  // "Service start-up and readiness").
  const events = startEventWork({ kafka, logger, topics: [Topics.storiesStory, Topics.storiesChapter, Topics.storiesComment], relay, consumers });
  // The first start on a fresh cluster builds the index; the service answers meanwhile (its
  // health does not depend on OpenSearch) and GET /stories is 503 until the index exists.
  const building = new AbortController();
  void retryUntilDone(
    async () => {
      if (await indexing.ensureIndex()) logger.info('story search index built');
    },
    { what: 'building the story search index', logger, signal: building.signal, initialDelayMs: 5_000, maxDelayMs: 5_000 },
  );

  shutdownOnSignals({
    logger,
    closers: serviceClosers(
      { server, events, metricsServer, eventMetrics, pool },
      {
        // The story index consumer uses OpenSearch until the Kafka work has stopped.
        afterEventWork: [
          { name: 'search index build', close: () => building.abort() },
          { name: 'opensearch', close: () => opensearch.close() },
        ],
        beforePool: [{ name: 'redis', close: () => redis.disconnect() }],
        afterPool: [{ name: 'markdown workers', close: () => closeMarkdown() }],
      },
    ),
  });
}

main().catch((error: unknown) => {
  createLogger('stories').fatal({ err: error }, 'stories service failed to start');
  process.exit(1);
});

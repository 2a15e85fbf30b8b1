import { grpcTlsSettings, internalAuthSettings, kafkaSettings, redisSettings } from '@inkwell/config';
import { createKafka, OutboxRelay, registerEventMetrics, startEventWork } from '@inkwell/events';
import { createInternalAuth, createMetricsRegistry, serveMetrics, serviceClosers, shutdownOnSignals } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { closeMarkdown, configureMarkdown } from '@inkwell/markdown';
import { Topics } from '@inkwell/proto/topics';
import { createRedis } from '@inkwell/redis';
import { loadBlogConfig } from './config.js';
import { createStoryConsumer } from './consumers/story.consumer.js';
import { BLOG_SCHEMA, openBlogDatabase } from './database.js';
import { BlogPostRepository } from './repositories/blog-post.repository.js';
import { KnownStoryRepository } from './repositories/known-story.repository.js';
import { ViewRepository } from './repositories/view.repository.js';
import { createBlogServer } from './server.js';
import { BlogPostService } from './services/blog-post.service.js';

/**
 * Composition root of the blog service: config → pool (migrated) and Redis → repositories →
 * service → gRPC server; the outbox relay publishes blog.post.v1, and the stories consumer keeps
 * the copy of published stories.
 */
async function main(): Promise<void> {
  const logger = createLogger('blog');
  const config = loadBlogConfig();
  // gRPC over TLS when configured (docs/api/foundation.md, "Internal calls"): the server and every client of this process.
  const tls = grpcTlsSettings(config);
  configureMarkdown({ workers: config.MARKDOWN_RENDER_WORKERS, deadlineMs: config.MARKDOWN_RENDER_DEADLINE_MS, memoryMb: config.MARKDOWN_RENDER_MEMORY_MB, textsPerCaller: config.MARKDOWN_RENDER_TEXTS_PER_CALLER });
  const pool = await openBlogDatabase({ connectionString: config.DATABASE_URL, migrationConnectionString: config.DATABASE_MIGRATION_URL, max: config.DATABASE_POOL_SIZE, logger });
  const redis = createRedis(redisSettings(config), { keyPrefix: config.REDIS_KEY_PREFIX }, logger);

  const posts = new BlogPostService({
    posts: new BlogPostRepository(pool),
    stories: new KnownStoryRepository(pool),
    views: new ViewRepository(redis),
    logger,
  });

  const kafka = createKafka({ ...kafkaSettings(config), clientId: 'inkwell-blog', logger, namespace: config.KAFKA_NAMESPACE });
  const metrics = createMetricsRegistry();
  const eventMetrics = registerEventMetrics({ registry: metrics, pool, schema: BLOG_SCHEMA, kafka, logger });
  const relay = new OutboxRelay({ pool, kafka, schema: BLOG_SCHEMA, logger });
  const stories = createStoryConsumer({ kafka, pool, logger });

  const server = createBlogServer({ logger, verifier: createInternalAuth('blog', internalAuthSettings(config)).verifier, metrics, posts });
  const port = await server.listen(`${config.BLOG_GRPC_HOST}:${config.BLOG_GRPC_PORT}`, { tls, healthPort: config.GRPC_HEALTH_PORT });
  const metricsServer = await serveMetrics({ registry: metrics, port: config.BLOG_METRICS_PORT, host: config.BLOG_GRPC_HOST, logger });
  logger.info({ port, metricsPort: metricsServer.port }, 'blog service listening');

  // After listening, in the background: Kafka being down only delays events and derived values
  // (docs/api/foundation.md, "Service start-up and readiness").
  const events = startEventWork({ kafka, logger, topics: [Topics.blogPost], relay, consumers: [stories] });

  shutdownOnSignals({
    logger,
    closers: serviceClosers(
      { server, events, metricsServer, eventMetrics, pool },
      {
        beforePool: [{ name: 'redis', close: () => redis.quit().catch(() => redis.disconnect()) }],
        afterPool: [{ name: 'markdown workers', close: () => closeMarkdown() }],
      },
    ),
  });
}

main().catch((error: unknown) => {
  createLogger('blog').fatal({ err: error }, 'blog service failed to start');
  process.exit(1);
});

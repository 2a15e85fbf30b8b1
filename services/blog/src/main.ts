import { internalAuthSettings } from '@inkwell/config';
import { createKafka, ensureTopics, OutboxRelay } from '@inkwell/events';
import { createInternalAuth } from '@inkwell/grpc';
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
  configureMarkdown({ workers: config.MARKDOWN_RENDER_WORKERS, deadlineMs: config.MARKDOWN_RENDER_DEADLINE_MS, memoryMb: config.MARKDOWN_RENDER_MEMORY_MB });
  const pool = await openBlogDatabase({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_SIZE, logger });
  const redis = createRedis(config.REDIS_URL, { keyPrefix: config.REDIS_KEY_PREFIX }, logger);

  const posts = new BlogPostService({
    posts: new BlogPostRepository(pool),
    stories: new KnownStoryRepository(pool),
    views: new ViewRepository(redis),
    logger,
  });

  const kafka = createKafka({ brokers: config.KAFKA_BROKERS, clientId: 'inkwell-blog', logger, namespace: config.KAFKA_NAMESPACE });
  await ensureTopics(kafka, [Topics.blogPost, Topics.storiesStory]);
  const relay = new OutboxRelay({ pool, kafka, schema: BLOG_SCHEMA, logger });
  await relay.start();
  const stories = createStoryConsumer({ kafka, pool, logger });
  await stories.start();

  const server = createBlogServer({ logger, verifier: createInternalAuth('blog', internalAuthSettings(config)).verifier, posts });
  const port = await server.listen(`${config.BLOG_GRPC_HOST}:${config.BLOG_GRPC_PORT}`);
  logger.info({ port }, 'blog service listening');

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await server.shutdown(5_000);
    await stories.stop();
    await relay.stop();
    await redis.quit().catch(() => redis.disconnect());
    await pool.end();
    await closeMarkdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  createLogger('blog').fatal({ err: error }, 'blog service failed to start');
  process.exit(1);
});

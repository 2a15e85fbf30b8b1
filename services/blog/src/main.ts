import { createKnownStoryConsumer, KnownStoryRepository } from '@inkwell/known-stories';
import { Topics } from '@inkwell/proto/topics';
import { runService } from '@inkwell/service';
import { loadBlogConfig } from './config.js';
import { createModerationConsumer } from './consumers/moderation.consumer.js';
import { BlogPostRepository } from './repositories/blog-post.repository.js';
import { ViewRepository } from './repositories/view.repository.js';
import { BLOG_MIGRATIONS, BLOG_SCHEMA } from './schema.js';
import { createBlogServer } from './server.js';
import { BlogPostService } from './services/blog-post.service.js';

/**
 * Composition root of the blog service: repositories → service → gRPC server on the common boot
 * (@inkwell/service); the outbox relay publishes blog.post.v1, and the stories consumer keeps the
 * copy of published stories; the moderation consumer hides what operators hid (docs/api/safety.md).
 */
runService({
  name: 'blog',
  prefix: 'BLOG',
  loadConfig: loadBlogConfig,
  database: { schema: BLOG_SCHEMA, migrations: BLOG_MIGRATIONS },
  markdown: true,
  topics: [Topics.blogPost],
  async wire({ logger, auth, pool, kafka, metrics, redis }) {
    const postRepository = new BlogPostRepository(pool);
    const posts = new BlogPostService({
      posts: postRepository,
      stories: new KnownStoryRepository(pool),
      views: new ViewRepository(redis()),
      logger,
    });
    return {
      server: createBlogServer({ logger, verifier: auth.verifier, metrics, posts }),
      consumers: [createKnownStoryConsumer({ service: 'blog', kafka, pool, logger }), createModerationConsumer({ kafka, posts: postRepository, logger })],
    };
  },
});

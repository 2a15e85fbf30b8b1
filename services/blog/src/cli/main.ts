import { ConfigError } from '@inkwell/config';
import { isAppError } from '@inkwell/errors';
import { createLogger } from '@inkwell/logging';
import { createRedis } from '@inkwell/redis';
import { openBlogDatabase } from '../schema.js';
import { BlogPostRepository } from '../repositories/blog-post.repository.js';
import { KnownStoryRepository } from '@inkwell/known-stories';
import { ViewRepository } from '../repositories/view.repository.js';
import { BlogPostService } from '../services/blog-post.service.js';
import { loadBlogCliConfig } from './cli.config.js';
import { describeSitePost, parseCreateSitePostArgs, USAGE, UsageError } from './create-site-post.command.js';

/**
 * `npm run cli:blog -- create-site-post …`: the blog's operator CLI, a second composition root of
 * the blog service (like the users CLI, `npm run cli`). It works on the blog schema directly
 * through the same service (so the same rules; migrating the schema if needed) rather than over
 * gRPC, so no RPC can create site posts. The post's BlogPostCreated event goes through the
 * outbox; the running blog service's relay publishes it. Exit codes: 0 done, 1 refused or
 * failed, 2 bad usage.
 */
async function main(argv: readonly string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'create-site-post') {
    console.error(`Unknown command ${command}.\n\n${USAGE}`);
    return 2;
  }
  const input = await parseCreateSitePostArgs(args);
  const config = loadBlogCliConfig();
  const logger = createLogger('blog-cli', { level: process.env.LOG_LEVEL ?? 'warn' });
  const pool = await openBlogDatabase({ connectionString: config.DATABASE_URL, logger, max: 2 });
  // Creating a site post counts no views: this client never connects.
  const redis = createRedis('redis://127.0.0.1:6379', { lazyConnect: true }, logger);
  try {
    const posts = new BlogPostService({ posts: new BlogPostRepository(pool), stories: new KnownStoryRepository(pool), views: new ViewRepository(redis), logger });
    console.log(describeSitePost(await posts.createSitePost(input)));
    return 0;
  } finally {
    redis.disconnect();
    await pool.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      console.error(error.message);
    } else if (isAppError(error) && error.details.length > 0) {
      for (const detail of error.details) console.error(detail.detail ?? error.message);
    } else {
      console.error(error instanceof Error ? error.message : error);
    }
    process.exit(1);
  },
);

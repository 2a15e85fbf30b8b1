import { isAppError } from '@inkwell/errors';
import { loadConfig } from '@inkwell/config';
import { createLogger } from '@inkwell/logging';
import { createRedis } from '@inkwell/redis';
import { z } from 'zod';
import { openBlogDatabase } from '../database.js';
import { BlogPostRepository } from '../repositories/blog-post.repository.js';
import { KnownStoryRepository } from '../repositories/known-story.repository.js';
import { ViewRepository } from '../repositories/view.repository.js';
import { BlogPostService } from '../services/blog-post.service.js';
import { describeSitePost, parseCreateSitePostArgs, USAGE, UsageError } from './create-site-post.command.js';

const schema = z.object({
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
});

/**
 * The blog's operator CLI: `create-site-post`. It works on the blog schema directly (migrating
 * it if needed); the post's BlogPostCreated event goes through the outbox, and the running blog
 * service's relay publishes it. Exit codes: 0 done, 1 failed, 2 bad usage.
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
  const config = loadConfig(schema, process.env);
  const logger = createLogger('blog-cli');
  const pool = await openBlogDatabase({ connectionString: config.DATABASE_URL, logger, max: 2 });
  // Creating a site post counts no views: Redis is never contacted.
  const redis = createRedis(config.REDIS_URL, { lazyConnect: true }, logger);
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
    if (isAppError(error) && error.details.length > 0) {
      for (const detail of error.details) console.error(detail.detail ?? error.message);
    } else {
      console.error(error instanceof Error ? error.message : error);
    }
    process.exit(1);
  },
);

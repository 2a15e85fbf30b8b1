import type pg from 'pg';
import { createGrpcClient, type CallerContext, type GrpcClient, type GrpcServer } from '@inkwell/grpc';
import { KnownStoryRepository, KnownStoryService } from '@inkwell/known-stories';
import { createLogger } from '@inkwell/logging';
import { BlogService } from '@inkwell/proto/blog';
import { createRedis, type Redis } from '@inkwell/redis';
import { callAs, closeServiceHarness, dropSchemas, ensureDatabase, KeyRing, stackEnv } from '@inkwell/testing';
import { BLOG_SCHEMA, openBlogDatabase } from '../src/schema.js';
import { BlogPostRepository } from '../src/repositories/blog-post.repository.js';
import { ViewRepository } from '../src/repositories/view.repository.js';
import { createBlogServer } from '../src/server.js';
import { BlogPostService } from '../src/services/blog-post.service.js';

/** A blog service on its own fresh database, served over real gRPC on a free port. */
export interface BlogHarness {
  pool: pg.Pool;
  redis: Redis;
  posts: BlogPostService;
  client: GrpcClient<typeof BlogService>;
  databaseUrl: string;
  /** Records a story in the blog's copy, as the stories consumer would. */
  story(id: string, published: boolean): Promise<void>;
  close(): Promise<void>;
}

export const logger = createLogger('blog-test');

/** Starts the harness on database `name` (created if missing, its blog schema dropped first). */
export async function startBlogHarness(name: string): Promise<BlogHarness> {
  const stack = stackEnv();
  const databaseUrl = await ensureDatabase(stack.databaseUrl, name);
  await dropSchemas(databaseUrl, [BLOG_SCHEMA]);
  const pool = await openBlogDatabase({ connectionString: databaseUrl, logger });
  const redis = createRedis(stack.redisUrl, {}, logger);
  const posts = new BlogPostService({ posts: new BlogPostRepository(pool), stories: new KnownStoryRepository(pool), views: new ViewRepository(redis), logger });
  const keys = KeyRing.generate();
  const server: GrpcServer = createBlogServer({ logger, verifier: keys.verifier('blog'), posts });
  const port = await server.listen('127.0.0.1:0');
  // As in the gateway: a post renders to up to ~5 MiB of HTML, a page with content carries up to 16 MiB.
  const client = createGrpcClient(BlogService, `127.0.0.1:${port}`, { ...keys.clientOptions('gateway'), channelOptions: { 'grpc.max_receive_message_length': 32 * 1024 * 1024 } });
  const known = new KnownStoryService(new KnownStoryRepository(pool));
  return {
    pool,
    redis,
    posts,
    client,
    databaseUrl,
    async story(id, published) {
      await known.record({ storyId: id, authorId: '1', published, deleted: false, version: new Date() });
    },
    close: () => closeServiceHarness({ client, server, redis, pool }),
  };
}

/** The caller of a user token with the given scopes. */
export function user(userId: string, scopes: string[] = ['write_blog_posts']): { caller: CallerContext } {
  return callAs({ userId, appId: 'test-app', scopes });
}

/** The caller of an app-only token. */
export function app(appId: string): { caller: CallerContext } {
  return callAs({ appId, scopes: [] });
}

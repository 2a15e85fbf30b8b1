import type pg from 'pg';
import { eventsMigrations } from '@inkwell/events';
import { createGrpcClient, type CallerContext, type GrpcClient, type GrpcServer } from '@inkwell/grpc';
import { createLogger } from '@inkwell/logging';
import { createPool, migrate } from '@inkwell/pg';
import { StoriesService } from '@inkwell/proto/stories';
import { createRedis, type Redis } from '@inkwell/redis';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { callAs, closeServiceHarness, dropSchemas, ensureDatabase, KeyRing, stackEnv } from '@inkwell/testing';
import { BookshelfCopyRepository } from '../src/repositories/bookshelf-copy.repository.js';
import { ChapterRepository } from '../src/repositories/chapter.repository.js';
import { EngagementRepository } from '../src/repositories/engagement.repository.js';
import { ReadingRepository } from '../src/repositories/reading.repository.js';
import { StoryDocumentRepository } from '../src/repositories/story-document.repository.js';
import { StoryIndexRepository } from '../src/repositories/story-index.repository.js';
import { StoryRepository } from '../src/repositories/story.repository.js';
import { TagRepository } from '../src/repositories/tag.repository.js';
import { ViewRepository } from '../src/repositories/view.repository.js';
import { STORIES_MIGRATIONS, STORIES_SCHEMA } from '../src/schema.js';
import { createStoriesServer } from '../src/server.js';
import { ChapterService } from '../src/services/chapter.service.js';
import { EngagementService } from '../src/services/engagement.service.js';
import { ReadingService } from '../src/services/reading.service.js';
import { StoryIndexService } from '../src/services/story-index.service.js';
import { StoryService } from '../src/services/story.service.js';
import { TagService } from '../src/services/tag.service.js';
import { isTagId } from '../src/transport/tag-id.js';

/** A stories service on a real database of its own, served over gRPC on a free port. */
export interface StoriesHarness {
  url: string;
  pool: pg.Pool;
  redis: Redis;
  /** Signs as `gateway`. */
  client: GrpcClient<typeof StoriesService>;
  /** The gRPC address of the service, `127.0.0.1:<port>`. */
  address: string;
  /** Test-only internal-auth keys: the server trusts every issuer of the ring. */
  keys: KeyRing;
  /** The search index of this harness (an index prefix of its own on the stack's OpenSearch). */
  search: { index: StoryIndexRepository; service: StoryIndexService; prefix: string };
  /** Writes these stories' current rows to the search index, as the index consumer does, and makes them searchable. */
  indexStories(ids: readonly string[]): Promise<void>;
  /** Rebuilds the search index from Postgres (what `npm run search:rebuild` does); searchable when it returns. */
  rebuildIndex(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the service against database `database` (created if missing, schema dropped first). */
export async function startStories(database: string): Promise<StoriesHarness> {
  const logger = createLogger('stories-test');
  const env = stackEnv();
  const url = await ensureDatabase(env.databaseUrl, database);
  await dropSchemas(url, [STORIES_SCHEMA]);
  const pool = createPool({ connectionString: url, schema: STORIES_SCHEMA });
  await migrate(pool, { schema: STORIES_SCHEMA, directory: STORIES_MIGRATIONS, extra: eventsMigrations, logger });
  const redis = createRedis(env.redisUrl);
  const opensearch = new OpenSearchClient({ node: env.opensearchUrl });
  const prefix = `t-${database.replace(/_/g, '-')}-${Date.now().toString(36)}.`;
  const index = new StoryIndexRepository(opensearch, prefix, { shards: 1, replicas: 0, refreshInterval: '500ms' });
  const indexing = new StoryIndexService(new StoryDocumentRepository(pool), index, logger);
  await indexing.rebuild();
  const storyRepository = new StoryRepository(pool);
  const stories = new StoryService(storyRepository, new TagRepository(pool), new BookshelfCopyRepository(pool), index);
  const chapterRepository = new ChapterRepository(pool);
  const reading = new ReadingService(new ReadingRepository(pool), chapterRepository);
  const chapters = new ChapterService(chapterRepository, storyRepository, stories, new ViewRepository(redis, `test:${database}:${Date.now()}:view`), reading, logger);
  const engagement = new EngagementService(new EngagementRepository(pool), stories);
  const keys = KeyRing.generate();
  const server: GrpcServer = createStoriesServer({ logger, verifier: keys.verifier('stories'), stories, chapters, tags: new TagService(new TagRepository(pool), isTagId), engagement, reading });
  const port = await server.listen('127.0.0.1:0');
  const client = createGrpcClient(StoriesService, `127.0.0.1:${port}`, keys.clientOptions('gateway'));
  return {
    url,
    pool,
    redis,
    client,
    search: { index, service: indexing, prefix },
    async indexStories(ids) {
      await indexing.syncStories(ids);
      await index.refresh();
    },
    async rebuildIndex() {
      await indexing.rebuild();
    },
    address: `127.0.0.1:${port}`,
    keys,
    close: () =>
      closeServiceHarness({ client, server, redis, pool }, async () => {
        await opensearch.indices.delete({ index: `${prefix}*` }).catch(() => {});
        await opensearch.close();
      }),
  };
}

/** A caller: a user with scopes, or an app-only caller (`{ appId }`). */
export function caller(who: { userId?: string; appId?: string }, scopes: string[] = []): { caller: CallerContext } {
  return callAs({ scopes, ...(who.userId ? { userId: who.userId } : {}), ...(who.appId ? { appId: who.appId } : {}) });
}

/** An author who may read and write their own stories. */
export const author = (userId: string) => caller({ userId }, ['read_stories', 'write_stories']);


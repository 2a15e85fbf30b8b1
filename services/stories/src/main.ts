import { retryUntilDone } from '@inkwell/events';
import { createGrpcClient } from '@inkwell/grpc';
import { createPool } from '@inkwell/pg';
import { Topics } from '@inkwell/proto/topics';
import { RelationsService, UsersService } from '@inkwell/proto/users';
import { runService } from '@inkwell/service';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { loadStoriesConfig } from './config.js';
import { createBookshelfCopyConsumer } from './consumers/bookshelf-copy.consumer.js';
import { createModerationConsumer } from './consumers/moderation.consumer.js';
import { createStoryIndexConsumer } from './consumers/story-index.consumer.js';
import { createStoryStatsConsumer } from './consumers/story-stats.consumer.js';
import { BookshelfCopyRepository } from './repositories/bookshelf-copy.repository.js';
import { BulkLoadRepository } from './repositories/bulk-load.repository.js';
import { ChapterRepository } from './repositories/chapter.repository.js';
import { EngagementRepository } from './repositories/engagement.repository.js';
import { ReadingRepository } from './repositories/reading.repository.js';
import { StoryDocumentRepository } from './repositories/story-document.repository.js';
import { StoryIndexRepository } from './repositories/story-index.repository.js';
import { StoryRepository } from './repositories/story.repository.js';
import { TagRepository } from './repositories/tag.repository.js';
import { UserBlocksRepository } from './repositories/user-blocks.repository.js';
import { ViewRepository } from './repositories/view.repository.js';
import { STORIES_MIGRATIONS, STORIES_SCHEMA } from './schema.js';
import { findDemoAuthors, seedDemoStories } from './seed/demo.seed.js';
import { createStoriesServer } from './server.js';
import { BookshelfCopyService } from './services/bookshelf-copy.service.js';
import { ChapterService } from './services/chapter.service.js';
import { EngagementService } from './services/engagement.service.js';
import { ReadingService } from './services/reading.service.js';
import { ContentHidingService } from './services/content-hiding.service.js';
import { StoryIndexService } from './services/story-index.service.js';
import { StoryStatsService } from './services/story-stats.service.js';
import { StoryService } from './services/story.service.js';
import { TagService } from './services/tag.service.js';
import { isTagId } from './transport/tag-id.js';

/** Composition root of the stories service: OpenSearch → repositories → services → server and consumers on the common boot (@inkwell/service). */
runService({
  name: 'stories',
  prefix: 'STORIES',
  loadConfig: loadStoriesConfig,
  database: { schema: STORIES_SCHEMA, migrations: STORIES_MIGRATIONS },
  markdown: true,
  topics: [Topics.storiesStory, Topics.storiesChapter, Topics.storiesComment],
  async wire({ config, logger, tls, auth, pool, kafka, metrics, redis }) {
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
    const chapterRepository = new ChapterRepository(pool);
    const reading = new ReadingService(new ReadingRepository(pool), chapterRepository);
    const chapters = new ChapterService(chapterRepository, storyRepository, stories, new ViewRepository(redis()), reading, logger);
    const tags = new TagService(new TagRepository(pool), isTagId);
    const engagementRepository = new EngagementRepository(pool);
    // Comments between users one of whom blocks the other are refused, asking the users service each time (docs/api/safety.md).
    const relations = createGrpcClient(RelationsService, config.USERS_SERVICE_ADDR, { defaultDeadlineMs: 2_000, signer: auth.signer, tls });
    const engagement = new EngagementService(engagementRepository, stories, new UserBlocksRepository(relations));
    if (config.SEED_DEMO_DATA) {
      const users = createGrpcClient(UsersService, config.USERS_SERVICE_ADDR, { defaultDeadlineMs: 2_000, signer: auth.signer, tls });
      // The bulk load stages rows in tables of its own: the schema's owner runs it, as the seed command does.
      const owner = createPool({ connectionString: config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL, schema: STORIES_SCHEMA, max: 2, applicationName: 'inkwell-stories-seed', logger });
      try {
        await seedDemoStories(new BulkLoadRepository(owner), await findDemoAuthors(users), config.DEMO_STORIES, logger);
      } finally {
        users.close();
        await owner.end();
      }
    }

    // The first start on a fresh cluster builds the index; the service answers meanwhile (its
    // health does not depend on OpenSearch) and GET /stories is 503 until the index exists.
    const building = new AbortController();
    return {
      server: createStoriesServer({ logger, verifier: auth.verifier, metrics, stories, chapters, tags, engagement, reading }),
      consumers: [
        createStoryStatsConsumer({ kafka, pool, stats: new StoryStatsService(storyRepository), logger }),
        createBookshelfCopyConsumer({ kafka, pool, copy: new BookshelfCopyService(shelfCopy), logger }),
        createStoryIndexConsumer({ kafka, index: indexing, logger }),
        createModerationConsumer({ kafka, hiding: new ContentHidingService(storyRepository, chapterRepository, engagementRepository, indexing, logger), logger }),
      ],
      started() {
        void retryUntilDone(
          async () => {
            if (await indexing.ensureIndex()) logger.info('story search index built');
          },
          { what: 'building the story search index', logger, signal: building.signal, initialDelayMs: 5_000, maxDelayMs: 5_000 },
        );
      },
      closers: {
        // The story index consumer uses OpenSearch until the Kafka work has stopped.
        afterEventWork: [
          { name: 'search index build', close: () => building.abort() },
          { name: 'opensearch', close: () => opensearch.close() },
        ],
        beforePool: [{ name: 'relations client', close: () => relations.close() }],
      },
    };
  },
});

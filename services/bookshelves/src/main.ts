import { createGrpcClient } from '@inkwell/grpc';
import { createKnownStoryConsumer } from '@inkwell/known-stories';
import { StoriesService } from '@inkwell/proto/stories';
import { Topics } from '@inkwell/proto/topics';
import { runService } from '@inkwell/service';
import { loadBookshelvesConfig } from './config.js';
import { BookshelfItemRepository } from './repositories/bookshelf-item.repository.js';
import { BookshelfRepository } from './repositories/bookshelf.repository.js';
import { StoryCopyRepository } from './repositories/story-copy.repository.js';
import { StoryDirectoryRepository } from './repositories/story-directory.repository.js';
import { BOOKSHELVES_MIGRATIONS, BOOKSHELVES_SCHEMA } from './schema.js';
import { seedDemoBookshelvesWhenListed } from './seed/demo.seed.js';
import { createBookshelvesServer } from './server.js';
import { BookshelfItemService } from './services/bookshelf-item.service.js';
import { BookshelfService } from './services/bookshelf.service.js';

/**
 * Composition root of the bookshelves service: stories client → repositories → services → gRPC
 * server on the common boot (@inkwell/service); the outbox relay publishes bookshelves.bookshelf.v1
 * and bookshelves.item.v1, and the stories consumer keeps the copy of the stories and the shelf
 * counts derived from it.
 */
runService({
  name: 'bookshelves',
  prefix: 'BOOKSHELVES',
  loadConfig: loadBookshelvesConfig,
  database: { schema: BOOKSHELVES_SCHEMA, migrations: BOOKSHELVES_MIGRATIONS },
  topics: [Topics.bookshelvesBookshelf, Topics.bookshelvesItem],
  async wire({ config, logger, tls, auth, pool, kafka, metrics }) {
    const storiesClient = createGrpcClient(StoriesService, config.STORIES_SERVICE_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS, signer: auth.signer, tls });
    const shelfRepository = new BookshelfRepository(pool);
    const storyDirectory = new StoryDirectoryRepository(storiesClient);
    const shelves = new BookshelfService(shelfRepository);
    const items = new BookshelfItemService({ shelves: shelfRepository, items: new BookshelfItemRepository(pool), stories: storyDirectory });
    return {
      server: createBookshelvesServer({ logger, verifier: auth.verifier, metrics, shelves, items }),
      consumers: [createKnownStoryConsumer({ service: 'bookshelves', kafka, pool, logger, store: (client) => new StoryCopyRepository(client) })],
      started() {
        // In the background: demo data never holds up or stops the service (the API works without it).
        if (config.SEED_DEMO_DATA) void seedDemoBookshelvesWhenListed({ shelves, items, stories: storyDirectory, logger });
      },
      closers: { beforePool: [{ name: 'stories client', close: () => storiesClient.close() }] },
    };
  },
});

import { eventsMigrations } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { createPool, migrateSchema } from '@inkwell/pg';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { loadSearchRebuildConfig } from '../config.js';
import { StoryDocumentRepository } from '../repositories/story-document.repository.js';
import { StoryIndexRepository } from '../repositories/story-index.repository.js';
import { STORIES_MIGRATIONS, STORIES_SCHEMA } from '../schema.js';
import { StoryIndexService } from '../services/story-index.service.js';

/**
 * `npm run search:rebuild`: rebuilds the story search index from Postgres (docs/api/stories.md,
 * "Search"), a second composition root of the stories service with the service's environment
 * (DATABASE_URL, DATABASE_MIGRATION_URL, OPENSEARCH_URL, OPENSEARCH_INDEX_PREFIX, STORY_INDEX_*). Lists keep reading the
 * old index, and the running service's consumer keeps writing changes to both, until the new one
 * is complete; then they swap in one step and the old one is dropped. This is how a mapping or
 * index setting change ships. Exit codes: 0 done, 1 failed.
 */
async function main(): Promise<number> {
  const config = loadSearchRebuildConfig();
  const logger = createLogger('stories-search-rebuild', { level: process.env.LOG_LEVEL ?? 'info' });
  const pool = createPool({ connectionString: config.DATABASE_URL, schema: STORIES_SCHEMA, max: 3, applicationName: 'inkwell-stories-search-rebuild', logger });
  // Long enough for a bulk request of 5,000 stories on a busy node.
  const opensearch = new OpenSearchClient({ node: config.OPENSEARCH_URL, requestTimeout: 120_000, maxRetries: 2 });
  try {
    // As the schema's owner when given (the Job runs with the stories pod's environment; docs/api/foundation.md, "Stores and least privilege").
    await migrateSchema(config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL, { schema: STORIES_SCHEMA, directory: STORIES_MIGRATIONS, extra: eventsMigrations, logger });
    const index = new StoryIndexRepository(opensearch, config.OPENSEARCH_INDEX_PREFIX, {
      shards: config.STORY_INDEX_SHARDS,
      replicas: config.STORY_INDEX_REPLICAS,
      refreshInterval: config.STORY_INDEX_REFRESH_INTERVAL,
    });
    const result = await new StoryIndexService(new StoryDocumentRepository(pool), index, logger).rebuild();
    console.log(`${result.stories} published stories in ${result.index}, now read through ${index.alias}${result.replaced.length > 0 ? `; dropped ${result.replaced.join(', ')}` : ''}.`);
    return 0;
  } catch (error) {
    logger.error({ err: error }, 'search index rebuild failed');
    return 1;
  } finally {
    await opensearch.close();
    await pool.end();
  }
}

process.exitCode = await main();

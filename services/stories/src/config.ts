import { z } from 'zod';
import { databaseEnv, envFlag, loadConfig, serviceAddress, serviceEnv } from '@inkwell/config';

/** Where story search lives and how a new index is set up (docs/api/stories.md, "Search"). */
const searchEnv = {
  /** The OpenSearch cluster of story search (docs/api/foundation.md, docs/api/stories.md, "Search"). */
  OPENSEARCH_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:19200').transform((url) => url.replace(/\/+$/, '')),
  /** Prepended to every index and alias name, so several systems can share one cluster. */
  OPENSEARCH_INDEX_PREFIX: z.string().regex(/^[a-z0-9._-]*$/, 'lower-case letters, digits, dot, dash and underscore only').default(''),
  /** Shards, replicas and refresh interval of a new story index (a change ships by `npm run search:rebuild`). */
  STORY_INDEX_SHARDS: z.coerce.number().int().min(1).max(64).default(1),
  STORY_INDEX_REPLICAS: z.coerce.number().int().min(0).max(8).default(0),
  STORY_INDEX_REFRESH_INTERVAL: z.string().regex(/^[1-9][0-9]*(ms|s)$/, 'a duration such as 500ms or 1s').default('500ms'),
  /** How long one search request may take before GET /stories answers 503, in ms. */
  STORY_SEARCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Whether tag counts (`facets=tags`) may come from the node's request cache until the index next changes. */
  STORY_TAG_COUNT_CACHE: envFlag.default(true),
};

const schema = serviceEnv('STORIES', { grpc: 50052, metrics: 9152 }, { redis: true, markdown: true }, {
  SEED_DEMO_DATA: envFlag.default(false),
  /** Stories the demo seed creates when SEED_DEMO_DATA is on and there are none yet. */
  DEMO_STORIES: z.coerce.number().int().min(0).max(100_000).default(200),
  /** Where the users service is: comments ask it about blocks (docs/api/safety.md), the demo seed picks its authors among its users. */
  USERS_SERVICE_ADDR: serviceAddress.default('127.0.0.1:50051'),
  ...searchEnv,
});

/** Configuration of the stories service, parsed once from the environment at boot. */
export type StoriesConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadStoriesConfig(env: NodeJS.ProcessEnv = process.env): StoriesConfig {
  return loadConfig(schema, env);
}

/**
 * What `npm run search:rebuild` needs: the database (DATABASE_MIGRATION_URL, when set, brings the
 * schema up to date first) and the search settings of the service (same variables).
 */
export type SearchRebuildConfig = z.output<typeof rebuildSchema>;

const rebuildSchema = z.object({ DATABASE_URL: databaseEnv.DATABASE_URL, DATABASE_MIGRATION_URL: databaseEnv.DATABASE_MIGRATION_URL, ...searchEnv });

/** Parses the rebuild command's environment; throws a ConfigError listing every bad variable. */
export function loadSearchRebuildConfig(env: NodeJS.ProcessEnv = process.env): SearchRebuildConfig {
  return loadConfig(rebuildSchema, env);
}

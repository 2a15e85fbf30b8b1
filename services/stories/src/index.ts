/**
 * What other workspaces use of the stories service: its schema and migrations, the data generator
 * and bulk loader (tools/seed), the list statement builder and the search body builder (tools/bench
 * explains the Postgres queries it measures and times the searches at the engine). The service
 * itself runs from main.ts.
 */
export { STORIES_SCHEMA, STORIES_MIGRATIONS } from './schema.js';
export { generateStories, type GeneratedStory, type GeneratorOptions, type SeedTag } from './seed/story.generator.js';
export { BulkLoadRepository, type BulkLoadOptions, type BulkLoadResult } from './repositories/bulk-load.repository.js';
export { storyPageStatement, type Statement } from './repositories/story-list.sql.js';
export { storySearchBody, storyTagCountsBody } from './repositories/story-index.query.js';
export { oldestMappingVersion, STORY_INDEX_MAPPING_VERSION } from './search/story-index.mapping.js';
export type { StoryListQuery } from './domain/story-query.js';

/**
 * What other workspaces (the data generator in tools/seed) use of the stories service: its
 * schema and migrations, the generator and the bulk loader. The service itself runs from main.ts.
 */
export { STORIES_SCHEMA, STORIES_MIGRATIONS } from './schema.js';
export { generateStories, type GeneratedStory, type GeneratorOptions, type SeedTag } from './seed/story.generator.js';
export { BulkLoadRepository, type BulkLoadOptions, type BulkLoadResult } from './repositories/bulk-load.repository.js';

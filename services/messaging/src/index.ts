/**
 * What other workspaces (the benchmark data generator in tools/) use of the messaging service:
 * its schema and migrations, the message generator and the bulk loader. The service itself runs
 * from main.ts.
 */
export { MESSAGING_SCHEMA, MESSAGING_MIGRATIONS } from './schema.js';
export { generateMessages, type GeneratedMessage, type MessageGeneratorOptions } from './seed/message.generator.js';
export { MessageBulkLoadRepository, type MessageBulkLoadResult } from './repositories/bulk-load.repository.js';

/**
 * What other workspaces use of the messaging service: its schema and migrations, the message
 * generator and the bulk loader (the data generator in tools/seed), and the SQL of a mailbox
 * query (the benchmark explains it to report the indexes used). The service runs from main.ts.
 */
export { MESSAGING_SCHEMA, MESSAGING_MIGRATIONS } from './schema.js';
export { generateMessages, type GeneratedMessage, type MessageGeneratorOptions } from './seed/message.generator.js';
export { MessageBulkLoadRepository, type MessageBulkLoadResult } from './repositories/bulk-load.repository.js';
export { buildMailboxQuery, type MailboxRequest } from './domain/mailbox-query.js';
export { mailboxSql, type MailboxSql } from './repositories/private-message.repository.js';

/**
 * What other workspaces use of the messaging service: its schema and migrations, the message
 * generator and the bulk loaders (the data generator in tools/seed: messages, and notifications
 * with the follows and stories they are made from), and the SQL of a mailbox query (the benchmark
 * explains it to report the indexes used). The service runs from main.ts.
 */
export { MESSAGING_SCHEMA, MESSAGING_MIGRATIONS } from './schema.js';
export { generateMessages, type GeneratedMessage, type MessageGeneratorOptions } from './seed/message.generator.js';
export { generateNotifications, type GeneratorStory, type NotificationGeneratorOptions } from './seed/notification.generator.js';
export { MessageBulkLoadRepository, type MessageBulkLoadResult } from './repositories/bulk-load.repository.js';
export { buildMailboxQuery, type MailboxRequest } from './domain/mailbox-query.js';
export { mailboxSql, type MailboxSql } from './repositories/private-message.repository.js';
export {
  NotificationBulkLoadRepository,
  type BulkNotification,
  type BulkFollow,
  type BulkKnownStory,
  type BulkKnownChapter,
} from './repositories/notification-bulk-load.repository.js';
export { NotificationFanoutRepository, type FanoutChunk } from './repositories/notification-fanout.repository.js';
export { NotificationEventRepository, type FanoutRequest } from './repositories/notification-event.repository.js';

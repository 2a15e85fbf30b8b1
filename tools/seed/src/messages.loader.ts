import type pg from 'pg';
import type { Logger } from '@inkwell/logging';
import { generateMessages, MessageBulkLoadRepository, MESSAGING_SCHEMA } from '@inkwell/messaging';
import { createPool } from '@inkwell/pg';
import { loadAuthors } from './authors.loader.js';

/** What seedMessages adds. */
export interface SeedMessagesOptions {
  /** Messages to add. */
  count: number;
  /** How many users write to each other: the users with the lowest ids, created when fewer exist. */
  users: number;
  seed: number;
  logger: Logger;
}

/** Messages spread over the two years before now, like a site that has run for a while. */
const SPAN_MS = 2 * 365 * 24 * 3600 * 1000;

/**
 * Adds generated private messages between the first `users` users of the database (the seed's
 * authors when there are enough; missing ones are created like authors), through the messaging
 * service's own generator and COPY bulk loader, into a schema already migrated
 * (migrateSeedSchemas). Returns how many users took part.
 */
export async function seedMessages(url: string, usersPool: pg.Pool, options: SeedMessagesOptions): Promise<{ messages: number; users: number }> {
  const { rows } = await usersPool.query<{ id: string }>('SELECT id FROM users ORDER BY id LIMIT $1', [options.users]);
  const userIds = rows.map((row) => String(row.id));
  if (userIds.length < options.users) userIds.push(...(await loadAuthors(usersPool, options.users - userIds.length, options.seed)));

  const pool = createPool({ connectionString: url, schema: MESSAGING_SCHEMA, max: 2, applicationName: 'inkwell-seed', settings: { jit: 'off' } });
  try {
    const bulk = new MessageBulkLoadRepository(pool);
    const end = new Date();
    const result = await bulk.load(
      generateMessages({ count: options.count, userIds, firstId: await bulk.nextId(), start: new Date(end.getTime() - SPAN_MS), end, seed: options.seed }),
      options.logger,
    );
    options.logger.info({ ...result, users: userIds.length }, 'messages loaded');
    return { messages: result.messages, users: userIds.length };
  } finally {
    await pool.end();
  }
}

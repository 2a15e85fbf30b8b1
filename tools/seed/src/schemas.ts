import { BOOKSHELVES_MIGRATIONS, BOOKSHELVES_SCHEMA } from '@inkwell/bookshelves';
import { eventsMigrations } from '@inkwell/events';
import type { Logger } from '@inkwell/logging';
import { MESSAGING_MIGRATIONS, MESSAGING_SCHEMA } from '@inkwell/messaging';
import { createPool, migrate } from '@inkwell/pg';
import { STORIES_MIGRATIONS, STORIES_SCHEMA } from '@inkwell/stories';
import { USERS_MIGRATIONS, USERS_SCHEMA } from '@inkwell/users';

/**
 * Every schema the data generator writes, with its service's migrations, in the order the seed
 * fills them (users first: the others refer to user ids).
 */
export const SEED_SCHEMAS: ReadonlyArray<{ schema: string; directory: string }> = [
  { schema: USERS_SCHEMA, directory: USERS_MIGRATIONS },
  { schema: STORIES_SCHEMA, directory: STORIES_MIGRATIONS },
  { schema: MESSAGING_SCHEMA, directory: MESSAGING_MIGRATIONS },
  { schema: BOOKSHELVES_SCHEMA, directory: BOOKSHELVES_MIGRATIONS },
];

/**
 * Brings every schema of SEED_SCHEMAS in the database at `url` up to date exactly as each service
 * does when it starts (its numbered migrations after the outbox tables of @inkwell/events), so
 * that an empty database can be counted, seeded and served.
 */
export async function migrateSeedSchemas(url: string, logger: Logger): Promise<void> {
  for (const { schema, directory } of SEED_SCHEMAS) {
    const pool = createPool({ connectionString: url, schema, max: 1, applicationName: 'inkwell-seed' });
    try {
      await migrate(pool, { schema, directory, extra: eventsMigrations, logger });
    } finally {
      await pool.end();
    }
  }
}

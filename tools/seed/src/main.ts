import { parseArgs } from 'node:util';
import { BOOKSHELVES_SCHEMA } from '@inkwell/bookshelves';
import { createLogger } from '@inkwell/logging';
import { createPool } from '@inkwell/pg';
import { MESSAGING_SCHEMA } from '@inkwell/messaging';
import { BulkLoadRepository, generateStories, STORIES_SCHEMA } from '@inkwell/stories';
import { dropSchemas, ensureDatabase, stackEnv } from '@inkwell/testing';
import { USERS_SCHEMA } from '@inkwell/users';
import { loadAuthors } from './authors.loader.js';
import { seedBookshelves } from './bookshelves.loader.js';
import { seedMessages } from './messages.loader.js';
import { seedNotifications } from './notifications.loader.js';
import { seedReading } from './reading.loader.js';
import { migrateSeedSchemas } from './schemas.js';

const HELP = `npm run seed -- [options]

Fills a database with generated users, stories and chapters, private messages between users,
and bookshelves (COPY; a million stories or messages in minutes). Every service's schema is
migrated first, so an empty database works.

  --stories <n>    published stories to add (default 10000)
  --drafts <n>     drafts to add besides (default 2% of --stories)
  --authors <n>    users to create as their authors (default: one per 20 stories, at least 10)
  --database <db>  database next to DATABASE_URL's (default inkwell_bench; created if missing)
  --messages <n>   private messages to add (default 0)
  --message-users <n>  users who write them: the first n users, created if missing (default 10000)
  --shelf-items <n>  bookshelf items to add on ordinary users' shelves (a few shelves each; default 0)
  --big-shelf <n>    with --shelf-items: also one public shelf of n stories (default 100000)
  --medium-shelf <n> with --shelf-items: also one private shelf of n stories (default 1000);
                     ordinary shelves stay smaller than both
  --notifications <n>  the notifications data set: n notifications (replacing those there) over
                     --notification-users users, and one more user followed by --followers of them
  --notification-users <n>  whose inboxes (the first n users, created if missing; default 100000)
  --followers <n>  followers of that one author (default 100000)
  --reading <n>    the reading-progress data set: the user with the lowest id has started n published
                   stories, half of each one's chapters marked read (replacing that user's; default 0)
  --migrate-only   only bring every schema up to date, add nothing
  --fresh          drop the users and stories (and, with --messages or --notifications, messaging; with --shelf-items,
                   bookshelves) schemas of that database first
  --seed <n>       random seed (same seed, same data; default 20261121)
`;

/** `npm run seed`: see HELP. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      stories: { type: 'string', default: '10000' },
      drafts: { type: 'string' },
      authors: { type: 'string' },
      database: { type: 'string', default: 'inkwell_bench' },
      messages: { type: 'string', default: '0' },
      'message-users': { type: 'string', default: '10000' },
      'shelf-items': { type: 'string', default: '0' },
      'big-shelf': { type: 'string', default: '100000' },
      'medium-shelf': { type: 'string', default: '1000' },
      notifications: { type: 'string', default: '0' },
      'notification-users': { type: 'string', default: '100000' },
      followers: { type: 'string', default: '100000' },
      reading: { type: 'string', default: '0' },
      'migrate-only': { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      seed: { type: 'string', default: '20261121' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const count = (name: string, value: string | undefined, fallback: number) => {
    const n = value === undefined ? fallback : Number(value);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, not ${value}`);
    return n;
  };
  const published = count('stories', values.stories, 10_000);
  const drafts = count('drafts', values.drafts, Math.round(published * 0.02));
  // Without stories (`--stories 0 --messages …`) no authors are created unless asked for.
  const noStories = published + drafts === 0 && values.authors === undefined;
  const authors = noStories ? 0 : Math.max(1, count('authors', values.authors, Math.max(10, Math.round(published / 20))));
  const seed = count('seed', values.seed, 20261121);
  const messages = count('messages', values.messages, 0);
  const messageUsers = Math.max(1, count('message-users', values['message-users'], 10_000));
  const shelfItems = count('shelf-items', values['shelf-items'], 0);
  const bigShelf = count('big-shelf', values['big-shelf'], 100_000);
  const mediumShelf = count('medium-shelf', values['medium-shelf'], 1000);
  const notifications = count('notifications', values.notifications, 0);
  const notificationUsers = Math.max(1, count('notification-users', values['notification-users'], 100_000));
  const followers = Math.min(notificationUsers, count('followers', values.followers, 100_000));
  const reading = count('reading', values.reading, 0);

  const logger = createLogger('seed');
  const started = Date.now();
  const url = await ensureDatabase(stackEnv().databaseUrl, values.database);
  if (values.fresh) await dropSchemas(url, [STORIES_SCHEMA, USERS_SCHEMA, ...(messages > 0 || notifications > 0 ? [MESSAGING_SCHEMA] : []), ...(shelfItems > 0 ? [BOOKSHELVES_SCHEMA] : [])]);
  await migrateSeedSchemas(url, logger);
  if (values['migrate-only']) {
    process.stdout.write(`Migrated ${values.database}: every schema is up to date\n`);
    return;
  }
  const usersPool = createPool({ connectionString: url, schema: USERS_SCHEMA, max: 3 });
  const storiesPool = createPool({ connectionString: url, schema: STORIES_SCHEMA, max: 4, applicationName: 'inkwell-seed' });
  try {

    const authorIds = await loadAuthors(usersPool, authors, seed);
    logger.info({ authors: authorIds.length, seconds: (Date.now() - started) / 1000 }, 'authors created');

    const bulk = new BulkLoadRepository(storiesPool);
    const first = await bulk.nextIds();
    const result = noStories ? { stories: 0, chapters: 0 } : await bulk.load(
      generateStories({ published, drafts, firstStoryId: first.story, firstChapterId: first.chapter, authors: authorIds, tags: await bulk.tags(), now: new Date(), seed }),
      { rebuildIndexes: published + drafts >= 20_000, emitEvents: false, logger },
    );
    // Generated stories bypass the events that keep users.num_stories; set it directly.
    await usersPool.query(
      `UPDATE users u SET num_stories = c.n FROM (SELECT author_id, count(*)::int AS n FROM ${STORIES_SCHEMA}.stories WHERE published GROUP BY author_id) c
       WHERE u.id = c.author_id AND u.num_stories <> c.n`,
    );
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    logger.info({ database: values.database, ...result, authors: authorIds.length, seconds }, 'seed complete');
    process.stdout.write(`Seeded ${values.database}: ${result.stories} stories (${drafts} drafts), ${result.chapters} chapters, ${authorIds.length} authors in ${seconds} s\n`);
    if (messages > 0) {
      const loaded = await seedMessages(url, usersPool, { count: messages, users: messageUsers, seed, logger });
      const total = Math.round((Date.now() - started) / 100) / 10;
      process.stdout.write(`Seeded ${values.database}: ${loaded.messages} private messages between ${loaded.users} users (${total} s in all)\n`);
    }
    if (shelfItems > 0) {
      const loaded = await seedBookshelves(url, { ordinaryItems: shelfItems, bigShelf, mediumShelf, seed, logger });
      const total = Math.round((Date.now() - started) / 100) / 10;
      process.stdout.write(`Seeded ${values.database}: ${loaded.shelves} bookshelves of ${loaded.owners} users with ${loaded.items} items (${total} s in all)\n`);
    }
    if (notifications > 0) {
      const loaded = await seedNotifications(url, usersPool, { count: notifications, users: notificationUsers, followers, seed, logger });
      const total = Math.round((Date.now() - started) / 100) / 10;
      process.stdout.write(`Seeded ${values.database}: ${loaded.notifications} notifications over ${loaded.users} users; user ${loaded.author} has ${loaded.followers} followers (${total} s in all)\n`);
    }
    if (reading > 0) {
      const loaded = await seedReading(usersPool, storiesPool, { stories: reading, seed, logger });
      const total = Math.round((Date.now() - started) / 100) / 10;
      process.stdout.write(`Seeded ${values.database}: user ${loaded.reader} has started ${loaded.stories} stories, ${loaded.chapters} chapters marked read (${total} s in all)\n`);
    }
  } finally {
    await usersPool.end();
    await storiesPool.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

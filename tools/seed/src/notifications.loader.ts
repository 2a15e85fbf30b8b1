import type pg from 'pg';
import type { Logger } from '@inkwell/logging';
import { generateNotifications, MESSAGING_SCHEMA, NotificationBulkLoadRepository, type GeneratorStory } from '@inkwell/messaging';
import { createPool } from '@inkwell/pg';
import { STORIES_SCHEMA } from '@inkwell/stories';
import { loadAuthors } from './authors.loader.js';

/** What seedNotifications makes. */
export interface SeedNotificationsOptions {
  /** Notifications in all: the whole inbox data set (it replaces any there). */
  count: number;
  /** Whose inboxes they fill: the users with the lowest ids, created when fewer exist. */
  users: number;
  /** Followers of one author of their own (the fan-out's worst case): the first users. */
  followers: number;
  seed: number;
  logger: Logger;
}

/** Published stories copied into the messaging service's story copy, at most (newest first). */
const STORY_COPY_LIMIT = 20_000;
/** Synthetic subject ids (comments, messages, blog posts) start above any real one. */
const FIRST_SYNTHETIC_ID = 1_000_000_000_000;

/**
 * The notifications benchmark data set (docs/benchmarks.md): `count` notifications over the
 * first `users` users, and one more user followed by the first `followers` of them, in the users
 * service (follows and their counts) and in the messaging service's copies (follows, and the
 * newest published stories with their chapters, as the events would have left them), so a chapter
 * by that author fans out to all of them. Replaces the notifications already there (the set is
 * unique per kind, subject and user, so it is made whole, not topped up); follows and story
 * copies are only added. Returns the author's id.
 */
export async function seedNotifications(url: string, usersPool: pg.Pool, options: SeedNotificationsOptions): Promise<{ notifications: number; users: number; author: string; followers: number }> {
  const { rows } = await usersPool.query<{ id: string }>('SELECT id FROM users ORDER BY id LIMIT $1', [options.users + 1]);
  const ids = rows.map((row) => String(row.id));
  if (ids.length < options.users + 1) ids.push(...(await loadAuthors(usersPool, options.users + 1 - ids.length, options.seed)));
  const userIds = ids.slice(0, options.users);
  const author = ids[options.users]!;
  const followerIds = userIds.slice(0, options.followers);

  const pool = createPool({ connectionString: url, schema: MESSAGING_SCHEMA, max: 2, applicationName: 'inkwell-seed', settings: { jit: 'off' } });
  try {
    const bulk = new NotificationBulkLoadRepository(pool);
    const follows = await addFollows(usersPool, author, followerIds);
    await bulk.loadFollows(follows.map((follow) => ({ followId: follow.id, followerId: follow.follower_id, followedId: author })));
    const stories = await copyStories(pool, bulk);
    await pool.query('TRUNCATE notifications');
    const result = await bulk.loadNotifications(
      generateNotifications({ count: options.count, userIds, stories, firstSyntheticId: FIRST_SYNTHETIC_ID, end: new Date(), seed: options.seed }),
      options.logger,
    );
    options.logger.info({ ...result, users: userIds.length, author, followers: followerIds.length }, 'notifications loaded');
    return { notifications: result.notifications, users: userIds.length, author, followers: followerIds.length };
  } finally {
    await pool.end();
  }
}

/** Makes `followerIds` follow `author` in the users service (counts kept); returns the follows it added. */
async function addFollows(usersPool: pg.Pool, author: string, followerIds: readonly string[]): Promise<Array<{ id: string; follower_id: string }>> {
  const { rows } = await usersPool.query<{ id: string; follower_id: string }>(
    `INSERT INTO follows (follower_id, followed_id) SELECT follower, $2 FROM unnest($1::bigint[]) AS follower WHERE follower <> $2
     ON CONFLICT (follower_id, followed_id) DO NOTHING RETURNING id, follower_id`,
    [followerIds, author],
  );
  await usersPool.query(
    `UPDATE users u SET num_followers = (SELECT count(*) FROM follows WHERE followed_id = u.id), num_following = (SELECT count(*) FROM follows WHERE follower_id = u.id)
      WHERE u.id = $1 OR u.id = ANY($2::bigint[])`,
    [author, rows.map((row) => row.follower_id)],
  );
  return rows;
}

/**
 * Copies the newest published stories of the stories schema and their published chapters into
 * the messaging service's copies where missing; returns them (with the ones already copied) for
 * the generator.
 */
async function copyStories(pool: pg.Pool, bulk: NotificationBulkLoadRepository): Promise<GeneratorStory[]> {
  const { rows } = await pool.query<{ id: string; author_id: string; chapter_ids: string[]; copied: boolean }>(
    `SELECT s.id, s.author_id, array_agg(c.id ORDER BY c.id)::text[] AS chapter_ids, EXISTS (SELECT 1 FROM known_stories k WHERE k.id = s.id) AS copied
       FROM (SELECT id, author_id FROM ${STORIES_SCHEMA}.stories WHERE published ORDER BY id DESC LIMIT $1) s
       JOIN ${STORIES_SCHEMA}.chapters c ON c.story_id = s.id AND c.published
      GROUP BY s.id, s.author_id`,
    [STORY_COPY_LIMIT],
  );
  const fresh = rows.filter((row) => !row.copied);
  const { rows: copiedChapters } = await pool.query<{ id: string }>('SELECT id FROM known_chapters WHERE story_id = ANY($1::bigint[])', [fresh.map((row) => row.id)]);
  const known = new Set(copiedChapters.map((row) => String(row.id)));
  await bulk.loadStories(fresh.map((row) => ({ id: row.id, authorId: row.author_id, published: true })));
  await bulk.loadChapters(fresh.flatMap((row) => row.chapter_ids.filter((id) => !known.has(id)).map((id) => ({ id, storyId: row.id, published: true }))));
  return rows.map((row) => ({ id: String(row.id), authorId: String(row.author_id), chapterIds: row.chapter_ids }));
}

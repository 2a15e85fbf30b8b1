import type pg from 'pg';
import { AppError, ErrorCode } from '@inkwell/errors';
import { appendEvent } from '@inkwell/events';
import { constraintName, translatePgError, withPgErrors, withTransaction } from '@inkwell/pg';
import type { Follow, FollowDirection, FollowPosition } from '../domain/follow.js';
import { userFollowed, userUnfollowed } from '../events/user.events.js';

interface FollowRow {
  id: string;
  follower_id: string;
  followed_id: string;
  date_followed: Date;
  date_micros: string;
}

const COLUMNS = `id, follower_id, followed_id, date_followed, (extract(epoch FROM date_followed) * 1000000)::bigint::text AS date_micros`;

function toFollow(row: FollowRow): Follow {
  return { id: String(row.id), followerId: String(row.follower_id), followedId: String(row.followed_id), dateFollowed: row.date_followed };
}

/** What a follow write found: the follow, which of the two users does not exist, or that one of them blocks the other. */
export type FollowOutcome = { follow: Follow } | { missing: 'follower' | 'followed' } | { blocked: true };

/** One page of follows and the position of its last row (undefined on the last page). */
export interface FollowPage {
  follows: Follow[];
  next?: FollowPosition;
}

/**
 * SQL access to `follows`, and the follow counts on `users`.
 *
 * Counts stay exact because a follow row and both counts change in one transaction: the two
 * user rows are locked first (`FOR UPDATE`, in id order, so that A following B while B follows
 * A cannot deadlock), then the follow row is inserted or deleted, then both counts move by one.
 * Concurrent follows of one user therefore queue on that user's row and each adds exactly one.
 * The event (UserFollowed / UserUnfollowed) is written to the outbox in the same transaction.
 * The users service owns these counts, so unlike counts fed by other services' events they
 * need no Kafka round trip. A block (docs/api/safety.md, "Blocking") locks the same two rows, so
 * a follow and a block between two users never interleave: the follow sees the block and is
 * refused, or the block sees the follow and ends it.
 */
export class FollowRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** Creates the follow; ALREADY_EXISTS when the pair exists. */
  async follow(followerId: string, followedId: string): Promise<FollowOutcome> {
    try {
      return await withTransaction(this.pool, async (client) => {
        const missing = await lockUsers(client, followerId, followedId);
        if (missing) return { missing };
        if (await blocksEitherWay(client, followerId, followedId)) return { blocked: true };
        const { rows } = await client.query<FollowRow>(
          `INSERT INTO follows (follower_id, followed_id) VALUES ($1, $2) RETURNING ${COLUMNS}`,
          [followerId, followedId],
        );
        await moveCounts(client, followerId, followedId, 1);
        const follow = toFollow(rows[0]!);
        await appendEvent(client, { key: follow.id, payload: userFollowed(follow) });
        return { follow };
      });
    } catch (error) {
      if (constraintName(error) === 'follows_pair_key') {
        throw new AppError(ErrorCode.ALREADY_EXISTS, 'You already follow this user.', {
          cause: error,
          details: [{ reason: 'conflict', pointer: '/data/relationships/followed', detail: 'You already follow this user.' }],
        });
      }
      throw translatePgError(error);
    }
  }

  /** Removes the follow; undefined when the pair does not exist. */
  async unfollow(followerId: string, followedId: string): Promise<Follow | undefined> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        if (await lockUsers(client, followerId, followedId)) return undefined;
        const { rows } = await client.query<FollowRow>(
          `DELETE FROM follows WHERE follower_id = $1 AND followed_id = $2 RETURNING ${COLUMNS}`,
          [followerId, followedId],
        );
        const row = rows[0];
        if (!row) return undefined;
        await moveCounts(client, followerId, followedId, -1);
        const follow = toFollow(row);
        await appendEvent(client, { key: follow.id, payload: userUnfollowed(follow) });
        return follow;
      });
    });
  }

  /** Up to `size` follows of `userId` in `direction` after `after`, ordered by (date_followed, id). */
  async list(userId: string, direction: FollowDirection, size: number, after: FollowPosition | undefined): Promise<FollowPage> {
    const column = direction === 'following' ? 'follower_id' : 'followed_id';
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<FollowRow>(
        `SELECT ${COLUMNS} FROM follows
         WHERE ${column} = $1
           AND ($2::bigint IS NULL OR (date_followed, id) > (timestamptz 'epoch' + $2::bigint * interval '1 microsecond', $3::bigint))
         ORDER BY date_followed, id
         LIMIT $4`,
        [userId, after?.dateMicros ?? null, after?.id ?? null, size + 1],
      );
      const page = rows.slice(0, size);
      const last = page[page.length - 1];
      return {
        follows: page.map(toFollow),
        ...(rows.length > size && last ? { next: { dateMicros: last.date_micros, id: String(last.id) } } : {}),
      };
    });
  }
}

/**
 * Ends every follow between two users, both ways, in the caller's transaction (which has locked
 * both users with {@link lockUsers}): counts move and a UserUnfollowed event is written for each.
 */
export async function endFollowsBetween(client: pg.PoolClient, userId: string, otherUserId: string): Promise<Follow[]> {
  const { rows } = await client.query<FollowRow>(
    `DELETE FROM follows WHERE (follower_id = $1 AND followed_id = $2) OR (follower_id = $2 AND followed_id = $1) RETURNING ${COLUMNS}`,
    [userId, otherUserId],
  );
  const ended = rows.map(toFollow);
  for (const follow of ended) {
    await moveCounts(client, follow.followerId, follow.followedId, -1);
    await appendEvent(client, { key: follow.id, payload: userUnfollowed(follow) });
  }
  return ended;
}

/** True when either user blocks the other. */
export async function blocksEitherWay(db: Pick<pg.PoolClient, 'query'>, userId: string, otherUserId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM blocks WHERE (blocker_id = $1 AND blocked_id = $2) OR (blocker_id = $2 AND blocked_id = $1) LIMIT 1`,
    [userId, otherUserId],
  );
  return rows.length > 0;
}

/** Locks both users in id order; names the one that does not exist, if any. */
export async function lockUsers(client: pg.PoolClient, followerId: string, followedId: string): Promise<'follower' | 'followed' | undefined> {
  const { rows } = await client.query<{ id: string }>(`SELECT id FROM users WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`, [[followerId, followedId]]);
  const found = new Set(rows.map((row) => String(row.id)));
  if (!found.has(followerId)) return 'follower';
  if (!found.has(followedId)) return 'followed';
  return undefined;
}

async function moveCounts(client: pg.PoolClient, followerId: string, followedId: string, delta: 1 | -1): Promise<void> {
  await client.query(`UPDATE users SET num_following = num_following + $2 WHERE id = $1`, [followerId, delta]);
  await client.query(`UPDATE users SET num_followers = num_followers + $2 WHERE id = $1`, [followedId, delta]);
}

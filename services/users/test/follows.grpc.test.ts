import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { FollowDirection } from '@inkwell/proto/users';
import { as, startUsersHarness, uniqueName, type UsersHarness } from './harness.js';

describe('follows over gRPC', () => {
  let h: UsersHarness;

  beforeAll(async () => {
    h = await startUsersHarness('inkwell_test_users_follows');
  });

  afterAll(async () => {
    await h?.close();
  });

  /** Users inserted directly: registering them over gRPC would cost a scrypt hash each. */
  async function users(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const name = uniqueName('f');
      const { rows } = await h.pool.query<{ id: string }>(`INSERT INTO users (name, email, password_hash) VALUES ($1, $2, 'x') RETURNING id`, [name, `${name}@example.org`]);
      ids.push(String(rows[0]!.id));
    }
    return ids;
  }

  async function counts(id: string) {
    const user = (await h.client.getUser({ id }, as(undefined))).user!;
    return { followers: user.numFollowers, following: user.numFollowing };
  }

  it('follows and unfollows, moving both counts, and emits UserFollowed / UserUnfollowed keyed by follow id', async () => {
    const [ada, bob] = await users(2);
    const { follow } = await h.client.followUser({ followerId: ada!, followedId: bob! }, as(ada, ['write_user']));
    expect(follow).toMatchObject({ followerId: ada, followedId: bob });
    expect(await counts(ada!)).toEqual({ followers: 0, following: 1 });
    expect(await counts(bob!)).toEqual({ followers: 1, following: 0 });

    const { follow: removed } = await h.client.unfollowUser({ followerId: ada!, followedId: bob! }, as(ada, ['write_user']));
    expect(removed?.id).toBe(follow!.id);
    expect(await counts(ada!)).toEqual({ followers: 0, following: 0 });
    expect(await counts(bob!)).toEqual({ followers: 0, following: 0 });

    const events = await h.pool.query<{ type: string; topic: string }>('SELECT type, topic FROM outbox WHERE key = $1 ORDER BY id', [follow!.id]);
    expect(events.rows).toEqual([
      { type: 'inkwell.users.v1.UserFollowed', topic: 'users.follow.v1' },
      { type: 'inkwell.users.v1.UserUnfollowed', topic: 'users.follow.v1' },
    ]);
  });

  it('answers following twice with a conflict, yourself and unknown users with validation errors on the relationship', async () => {
    const [ada, bob] = await users(2);
    await h.client.followUser({ followerId: ada!, followedId: bob! }, as(ada, ['write_user']));
    await expect(h.client.followUser({ followerId: ada!, followedId: bob! }, as(ada, ['write_user']))).rejects.toMatchObject({
      code: ErrorCode.ALREADY_EXISTS,
      details: [{ reason: 'conflict' }],
    });
    await expect(h.client.followUser({ followerId: ada!, followedId: ada! }, as(ada, ['write_user']))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed', pointer: '/data/relationships/followed' }],
    });
    await expect(h.client.followUser({ followerId: ada!, followedId: '999999999' }, as(ada, ['write_user']))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed', pointer: '/data/relationships/followed' }],
    });
    expect(await counts(bob!)).toEqual({ followers: 1, following: 0 });
    expect(await counts(ada!)).toEqual({ followers: 0, following: 1 });
  });

  it('lets only the follower follow and unfollow; unfollowing someone you do not follow is NOT_FOUND', async () => {
    const [ada, bob, eve] = await users(3);
    await expect(h.client.followUser({ followerId: ada!, followedId: bob! }, as(eve, ['write_user']))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, message: 'You can follow people only as yourself.', details: [{ reason: 'forbidden' }] });
    // An app acting alone has no user to follow as (the gateway refuses it first); a user needs write_user.
    await expect(h.client.followUser({ followerId: ada!, followedId: bob! }, as(undefined, ['write_user']))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED, details: [{ reason: 'invalid_token' }] });
    await expect(h.client.followUser({ followerId: ada!, followedId: bob! }, as(ada))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'insufficient_scope', scope: 'write_user' }] });
    await h.client.followUser({ followerId: ada!, followedId: bob! }, as(ada, ['write_user']));
    await expect(h.client.unfollowUser({ followerId: ada!, followedId: bob! }, as(eve, ['write_user']))).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, message: 'You can unfollow people only as yourself.' });
    await expect(h.client.unfollowUser({ followerId: eve!, followedId: bob! }, as(eve, ['write_user']))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND, details: [{ reason: 'not_found' }] });
    expect(await counts(bob!)).toEqual({ followers: 1, following: 0 });
  });

  it('keeps counts exact under concurrency: 20 parallel follows of one user, and A↔B crossing follows without deadlock', async () => {
    const [star, ...fans] = await users(21);
    const results = await Promise.allSettled(fans.map((fan) => h.client.followUser({ followerId: fan, followedId: star! }, as(fan, ['write_user']))));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(20);
    expect(await counts(star!)).toEqual({ followers: 20, following: 0 });
    const { rows } = await h.pool.query<{ count: string }>('SELECT count(*) FROM follows WHERE followed_id = $1', [star]);
    expect(Number(rows[0]!.count)).toBe(20);

    // Crossing follows and unfollows between two users, many times at once.
    const [a, b] = await users(2);
    for (let round = 0; round < 5; round++) {
      await Promise.all([h.client.followUser({ followerId: a!, followedId: b! }, as(a, ['write_user'])), h.client.followUser({ followerId: b!, followedId: a! }, as(b, ['write_user']))]);
      await Promise.all([h.client.unfollowUser({ followerId: a!, followedId: b! }, as(a, ['write_user'])), h.client.unfollowUser({ followerId: b!, followedId: a! }, as(b, ['write_user']))]);
    }
    expect(await counts(a!)).toEqual({ followers: 0, following: 0 });

    // Duplicate follows racing each other: exactly one wins.
    const [x, y] = await users(2);
    const racing = await Promise.allSettled(Array.from({ length: 8 }, () => h.client.followUser({ followerId: x!, followedId: y! }, as(x, ['write_user']))));
    expect(racing.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(await counts(y!)).toEqual({ followers: 1, following: 0 });
  });

  it('lists both directions in insertion order, page by page, with no duplicates or gaps', async () => {
    const [star, ...fans] = await users(7);
    for (const fan of fans) await h.client.followUser({ followerId: fan, followedId: star! }, as(fan, ['write_user']));
    for (const fan of fans.slice(0, 3)) await h.client.followUser({ followerId: star!, followedId: fan }, as(star, ['write_user']));

    const seen: string[] = [];
    let after = '';
    let pages = 0;
    do {
      const page = await h.client.listFollows({ userId: star!, direction: FollowDirection.FOLLOWERS, pageSize: 4, after }, as(undefined));
      seen.push(...page.follows.map((follow) => follow.followerId));
      for (const follow of page.follows) expect(follow.followedId).toBe(star);
      after = page.nextAfter;
      pages += 1;
    } while (after !== '');
    expect(pages).toBe(2);
    expect(seen).toEqual(fans);

    const following = await h.client.listFollows({ userId: star!, direction: FollowDirection.FOLLOWING, pageSize: 0, after: '' }, as(undefined));
    expect(following.follows.map((follow) => follow.followedId)).toEqual(fans.slice(0, 3));
    expect(following.nextAfter).toBe('');

    // Ties on date_followed (one transaction) are broken by id.
    await h.pool.query(`UPDATE follows SET date_followed = '2026-01-01T00:00:00Z' WHERE followed_id = $1`, [star]);
    const tied: string[] = [];
    after = '';
    do {
      const page = await h.client.listFollows({ userId: star!, direction: FollowDirection.FOLLOWERS, pageSize: 2, after }, as(undefined));
      tied.push(...page.follows.map((follow) => follow.followerId));
      after = page.nextAfter;
    } while (after !== '');
    expect(tied).toEqual(fans);
  });

  it('rejects bad page sizes, malformed cursors, no direction, and unknown users', async () => {
    const [ada] = await users(1);
    const list = (request: { pageSize?: number; after?: string; direction?: FollowDirection; userId?: string }) =>
      h.client.listFollows({ userId: ada!, direction: FollowDirection.FOLLOWERS, pageSize: 10, after: '', ...request }, as(undefined));
    await expect(list({ pageSize: 101 })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [{ reason: 'invalid_parameter', parameter: 'page[size]' }] });
    await expect(list({ pageSize: -1 })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    await expect(list({ after: 'garbage!' })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [{ reason: 'invalid_cursor', parameter: 'page[cursor]' }] });
    await expect(list({ after: Buffer.from('1:0').toString('base64url') })).rejects.toMatchObject({ details: [{ reason: 'invalid_cursor' }] });
    await expect(list({ direction: FollowDirection.UNSPECIFIED })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    await expect(list({ userId: '999999999' })).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });
});

import { describe, expect, it } from 'vitest';
import { memoryUsers } from '../testing/memory.repositories.js';

describe('FollowService', () => {
  it('follows and unfollows as the caller, moving both counts', async () => {
    const { follows, accounts, data } = memoryUsers();
    const [ada, grace] = [data.putUser('ada'), data.putUser('grace')];
    const caller = { userId: ada, scopes: [] };

    expect(await follows.follow(caller, ada, grace)).toMatchObject({ followerId: ada, followedId: grace });
    expect(await accounts.getUser(ada, caller)).toMatchObject({ numFollowing: 1, numFollowers: 0 });
    expect(await accounts.getUser(grace, caller)).toMatchObject({ numFollowing: 0, numFollowers: 1 });

    await follows.unfollow(caller, ada, grace);
    expect(await accounts.getUser(grace, caller)).toMatchObject({ numFollowers: 0 });
  });

  it('answers following twice with a conflict, and yourself or an unknown user with a validation error on `followed`', async () => {
    const { follows, data } = memoryUsers();
    const [ada, grace] = [data.putUser('ada'), data.putUser('grace')];
    const caller = { userId: ada, scopes: [] };
    await follows.follow(caller, ada, grace);

    await expect(follows.follow(caller, ada, grace)).rejects.toMatchObject({ code: 'ALREADY_EXISTS', details: [{ reason: 'conflict', pointer: '/data/relationships/followed' }] });
    const onFollowed = { code: 'INVALID_ARGUMENT', details: [{ reason: 'validation_failed', pointer: '/data/relationships/followed' }] };
    await expect(follows.follow(caller, ada, ada)).rejects.toMatchObject(onFollowed);
    await expect(follows.follow(caller, ada, '999')).rejects.toMatchObject(onFollowed);
    await expect(follows.follow(caller, ada, 'nobody')).rejects.toMatchObject(onFollowed);
  });

  it('lets only the follower follow and unfollow; unfollowing someone not followed is NOT_FOUND', async () => {
    const { follows, data } = memoryUsers();
    const [ada, grace, alan] = [data.putUser('ada'), data.putUser('grace'), data.putUser('alan')];
    await follows.follow({ userId: ada, scopes: [] }, ada, grace);

    const forbidden = { code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] };
    await expect(follows.follow({ userId: alan, scopes: [] }, ada, alan)).rejects.toMatchObject(forbidden);
    await expect(follows.unfollow({ userId: alan, scopes: [] }, ada, grace)).rejects.toMatchObject(forbidden);
    await expect(follows.follow({ scopes: [] }, ada, alan)).rejects.toMatchObject(forbidden);
    await expect(follows.unfollow({ userId: ada, scopes: [] }, ada, alan)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'You do not follow this user.' });
  });

  it('lists both directions oldest first, page by page, without gaps or repeats', async () => {
    const { follows, data } = memoryUsers();
    const ada = data.putUser('ada');
    const others = ['b', 'c', 'd', 'e', 'f'].map((name) => data.putUser(name));
    for (const other of others) {
      await follows.follow({ userId: ada, scopes: [] }, ada, other);
      await follows.follow({ userId: other, scopes: [] }, other, ada);
    }

    const seen: string[] = [];
    let after = '';
    do {
      const page = await follows.list(ada, 'following', 2, after);
      seen.push(...page.follows.map((follow) => follow.followedId));
      after = page.nextAfter ?? '';
    } while (after !== '');
    expect(seen).toEqual(others);
    expect((await follows.list(ada, 'followers', 0, '')).follows.map((follow) => follow.followerId)).toEqual(others);
    await expect(follows.list('999', 'followers', 0, '')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

import { randomInt } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { GrpcClient } from '@inkwell/grpc';
import { BatchGetUsersResponseSchema, GetUserResponseSchema, UserSchema, type BatchGetUsersRequest, type UsersService } from '@inkwell/proto/users';
import { createRedis, type Redis } from '@inkwell/redis';
import { stackEnv } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedUsersClient } from '../src/cache/cached-backends.js';
import { PublicResourceCache, publicCacheGenerations } from '../src/cache/public-resource.cache.js';
import { useTestRedis } from './support/test-redis.js';

const testRedis = useTestRedis('cached-users');
/** The generations' client, under this file's key prefix (deleted after the tests). */
let redis: Redis;

beforeAll(async () => {
  redis = createRedis(stackEnv().redisUrl, { keyPrefix: testRedis.prefix });
  await redis.ping();
});

afterAll(async () => {
  await redis?.quit();
});

/** A users service that answers every id it is asked for (the caller's own record with its e-mail) and records the batches. */
function fakeUsers() {
  const batches: string[][] = [];
  let singles = 0;
  const userOf = (id: string, callerId?: string) => create(UserSchema, { id, name: `user ${id}`, ...(id === callerId ? { email: `${id}@example.test` } : {}) });
  const client = {
    async batchGetUsers(request: Partial<BatchGetUsersRequest>, options?: { caller?: { userId?: string } }) {
      const ids = [...(request.ids ?? [])];
      batches.push(ids);
      return create(BatchGetUsersResponseSchema, { users: ids.map((id) => userOf(id, options?.caller?.userId)) });
    },
    async getUser(request: { id?: string }, options?: { caller?: { userId?: string } }) {
      singles++;
      return create(GetUserResponseSchema, { user: userOf(request.id ?? '', options?.caller?.userId) });
    },
  };
  return { client: client as unknown as GrpcClient<typeof UsersService>, batches, singles: () => singles };
}

function liveCache(): PublicResourceCache {
  const cache = new PublicResourceCache({ maxEntries: 100, maxBytes: 1024 * 1024, ttlMs: 60_000 });
  cache.setLive(true);
  return cache;
}

/** Ids no other run of this file uses (the generations live in the shared Redis). */
const freshIds = (n: number) => Array.from({ length: n }, () => String(randomInt(1, 2 ** 47)));
const anonymous = { caller: { requestId: 'test', scopes: [] } };
const names = (response: { users: { id: string; name: string }[] }) => response.users.map((user) => [user.id, user.name]);

describe('cachedUsersClient batchGetUsers', () => {
  it('asks the service only for the users it does not hold, in the order asked, and shares the entries with getUser', async () => {
    const users = fakeUsers();
    const cached = cachedUsersClient(users.client, liveCache(), publicCacheGenerations(redis, 60_000));
    const [a, b, c] = freshIds(3) as [string, string, string];
    expect(names(await cached.batchGetUsers({ ids: [a, b] }, anonymous))).toEqual([[a, `user ${a}`], [b, `user ${b}`]]);
    expect(names(await cached.batchGetUsers({ ids: [b, c, a, b] }, anonymous))).toEqual([[b, `user ${b}`], [c, `user ${c}`], [a, `user ${a}`]]);
    expect(users.batches).toEqual([[a, b], [c]]);
    expect((await cached.getUser({ id: c }, anonymous)).user?.name).toBe(`user ${c}`);
    expect(users.singles()).toBe(0);
  });

  it('reads a user again once a write started a new generation of their entry', async () => {
    const users = fakeUsers();
    const generations = publicCacheGenerations(redis, 60_000);
    const cached = cachedUsersClient(users.client, liveCache(), generations);
    const [a, b] = freshIds(2) as [string, string];
    await cached.batchGetUsers({ ids: [a, b] }, anonymous);
    await generations.bump(`user:${b}`);
    await cached.batchGetUsers({ ids: [a, b] }, anonymous);
    expect(users.batches).toEqual([[a, b], [b]]);
  });

  it("never serves nor keeps a batch that holds the caller's own record (it carries the e-mail)", async () => {
    const users = fakeUsers();
    const cached = cachedUsersClient(users.client, liveCache(), publicCacheGenerations(redis, 60_000));
    const [self, other] = freshIds(2) as [string, string];
    const asSelf = { caller: { requestId: 'test', userId: self, scopes: [] } };
    const own = await cached.batchGetUsers({ ids: [self, other] }, asSelf);
    expect(own.users.find((user) => user.id === self)?.email).toBe(`${self}@example.test`);
    const seen = await cached.batchGetUsers({ ids: [self] }, anonymous);
    expect(seen.users[0]?.email).toBeUndefined();
    expect(users.batches).toEqual([[self, other], [self]]);
  });
});

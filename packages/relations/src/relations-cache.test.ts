import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { GrpcClient } from '@inkwell/grpc';
import { GetRelationsResponseSchema, type RelationsService } from '@inkwell/proto/users';
import { createRedis, type Redis } from '@inkwell/redis';
import { stackEnv } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedRelationsClient, relationsGenerations, RELATIONS_MAX_AGE_MS } from './relations-cache.js';

const prefix = `test:relations:${randomUUID()}:`;
let redis: Redis;

beforeAll(async () => {
  redis = createRedis(stackEnv().redisUrl, { keyPrefix: prefix });
  await redis.ping();
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  // keys() answers full names; del() adds the prefix again, so strip it.
  if (keys.length > 0) await redis.del(...keys.map((key) => key.slice(prefix.length)));
  await redis.quit();
});

/** A users service whose answer for each user is what `blocked` holds now; counts its calls. */
function fakeRelations() {
  const blocked = new Map<string, string[]>();
  let calls = 0;
  const client = {
    async getRelations(request: { userId?: string }) {
      calls++;
      return create(GetRelationsResponseSchema, { blockedUserIds: [...(blocked.get(request.userId ?? '') ?? [])] });
    },
  };
  return { client: client as unknown as GrpcClient<typeof RelationsService>, blocked, calls: () => calls };
}

const caller = { caller: { requestId: 'test', scopes: [], userId: '1' } };

describe('cachedRelationsClient', () => {
  it('answers from its copy while the generation holds, and reads again on the request after a bump', async () => {
    const service = fakeRelations();
    const generations = relationsGenerations(redis);
    const cached = cachedRelationsClient(service.client, generations);
    service.blocked.set('1', ['7']);
    expect((await cached.getRelations({ userId: '1' }, caller)).blockedUserIds).toEqual(['7']);
    expect((await cached.getRelations({ userId: '1' }, caller)).blockedUserIds).toEqual(['7']);
    expect(service.calls()).toBe(1);
    // The users service commits the block, then bumps before it answers.
    service.blocked.set('1', ['7', '8']);
    await generations.bump('1');
    expect((await cached.getRelations({ userId: '1' }, caller)).blockedUserIds).toEqual(['7', '8']);
    expect(service.calls()).toBe(2);
    // Another user's copy is their own.
    expect((await cached.getRelations({ userId: '2' }, caller)).blockedUserIds).toEqual([]);
    expect(service.calls()).toBe(3);
  });

  it('does not keep a copy for a change that lands while it is read', async () => {
    const service = fakeRelations();
    const generations = relationsGenerations(redis);
    const cached = cachedRelationsClient(service.client, generations);
    const slow = Object.assign(Object.create(service.client) as GrpcClient<typeof RelationsService>, {
      async getRelations(request: { userId?: string }) {
        const answer = await service.client.getRelations(request, caller);
        // The block commits and is announced after the service read its sets.
        service.blocked.set('3', ['9']);
        await generations.bump('3');
        return answer;
      },
    });
    const racing = cachedRelationsClient(slow, generations);
    expect((await racing.getRelations({ userId: '3' }, caller)).blockedUserIds).toEqual([]);
    expect((await cached.getRelations({ userId: '3' }, caller)).blockedUserIds).toEqual(['9']);
    expect((await racing.getRelations({ userId: '3' }, caller)).blockedUserIds).toEqual(['9']);
  });

  it(`reads again once its copy is ${RELATIONS_MAX_AGE_MS} ms old, even if no bump came`, async () => {
    const service = fakeRelations();
    let clock = 0;
    const cached = cachedRelationsClient(service.client, relationsGenerations(redis), { now: () => clock });
    await cached.getRelations({ userId: '4' }, caller);
    clock = RELATIONS_MAX_AGE_MS - 1;
    await cached.getRelations({ userId: '4' }, caller);
    expect(service.calls()).toBe(1);
    clock = RELATIONS_MAX_AGE_MS;
    await cached.getRelations({ userId: '4' }, caller);
    expect(service.calls()).toBe(2);
  });

  it('keeps at most maxUsers copies, dropping the oldest', async () => {
    const service = fakeRelations();
    const cached = cachedRelationsClient(service.client, relationsGenerations(redis), { maxUsers: 2 });
    for (const userId of ['5', '6', '10']) await cached.getRelations({ userId }, caller);
    await cached.getRelations({ userId: '10' }, caller);
    await cached.getRelations({ userId: '6' }, caller);
    expect(service.calls()).toBe(3);
    await cached.getRelations({ userId: '5' }, caller);
    expect(service.calls()).toBe(4);
  });

  it('keeps at most maxIds ids in all, dropping the oldest copies to make room', async () => {
    const service = fakeRelations();
    service.blocked.set('20', ['1', '2', '3']);
    service.blocked.set('21', ['4', '5']);
    service.blocked.set('22', ['6', '7']);
    const cached = cachedRelationsClient(service.client, relationsGenerations(redis), { maxIds: 5 });
    for (const userId of ['20', '21']) await cached.getRelations({ userId }, caller);
    await cached.getRelations({ userId: '22' }, caller); // 7 ids: user 20's copy goes
    await cached.getRelations({ userId: '21' }, caller);
    await cached.getRelations({ userId: '22' }, caller);
    expect(service.calls()).toBe(3);
    await cached.getRelations({ userId: '20' }, caller);
    expect(service.calls()).toBe(4);
  });

  it('reads every time through the service while Redis cannot answer', async () => {
    const service = fakeRelations();
    const down = createRedis('redis://127.0.0.1:1', { lazyConnect: true, retryStrategy: () => null });
    const cached = cachedRelationsClient(service.client, relationsGenerations(down));
    service.blocked.set('11', ['12']);
    expect((await cached.getRelations({ userId: '11' }, caller)).blockedUserIds).toEqual(['12']);
    service.blocked.set('11', []);
    expect((await cached.getRelations({ userId: '11' }, caller)).blockedUserIds).toEqual([]);
    expect(service.calls()).toBe(2);
    down.disconnect();
  });
});

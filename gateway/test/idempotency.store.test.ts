import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode } from '@inkwell/errors';
import { createRedis, type Redis } from '@inkwell/redis';
import { stackEnv } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyStore } from '../src/idempotency/idempotency.store.js';
import { withIdempotency } from '../src/idempotency/idempotent.routes.js';
import { defineRoute, type ApiRequest, type ApiResponse } from '../src/routing/route.types.js';

let redis: Redis;
const prefix = `test:idem:${randomUUID()}:`;

beforeAll(() => {
  redis = createRedis(stackEnv().redisUrl);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const request = (key: string, body: unknown): ApiRequest =>
  ({ method: 'POST', params: {}, query: new URLSearchParams(), body, idempotencyKey: key, caller: { requestId: 'r', userId: '7', scopes: [] }, selfLink: 'http://x/api/v1/things' }) as ApiRequest;

/** A POST route whose handler answers from `answers` in turn (an Error is thrown), counting its runs. */
function route(answers: (ApiResponse | Error)[]) {
  let runs = 0;
  const definition = defineRoute({
    method: 'POST',
    path: '/things',
    handler: () => {
      const next = answers[Math.min(runs++, answers.length - 1)] as ApiResponse | Error;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  });
  const [wrapped] = withIdempotency([definition], new IdempotencyStore(redis, { keyPrefix: prefix }));
  return { handler: wrapped!.handler, runs: () => runs };
}

const created: ApiResponse = { status: 201, headers: { Location: 'http://x/api/v1/things/1' }, document: { data: null, links: { self: 'http://x/api/v1/things/1' } } };

describe('withIdempotency (docs/api/foundation.md, "Idempotent POSTs")', () => {
  it('keeps no answer of a server failure: the retry runs again and its answer is kept', async () => {
    const thing = route([new AppError(ErrorCode.UNAVAILABLE, 'the backend is down'), created]);
    const key = randomUUID();
    await expect(thing.handler(request(key, { a: 1 }))).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    expect(await thing.handler(request(key, { a: 1 }))).toEqual(created);
    expect(await thing.handler(request(key, { a: 1 }))).toEqual({ ...created, headers: { ...created.headers, 'Idempotent-Replayed': 'true' } });
    expect(thing.runs()).toBe(2);
  });

  it('keeps no answer of an unexpected failure either', async () => {
    const thing = route([new Error('bug'), created]);
    const key = randomUUID();
    await expect(thing.handler(request(key, {}))).rejects.toThrow('bug');
    expect((await thing.handler(request(key, {}))).status).toBe(201);
    expect(thing.runs()).toBe(2);
  });

  it('leaves other methods alone and runs a POST without a key every time', async () => {
    const thing = route([created]);
    const bare = { ...request('x', {}) } as { idempotencyKey?: string };
    delete bare.idempotencyKey;
    await thing.handler(bare as ApiRequest);
    await thing.handler(bare as ApiRequest);
    expect(thing.runs()).toBe(2);
    const get = defineRoute({ method: 'GET', path: '/things', handler: () => Promise.resolve(created) });
    expect(withIdempotency([get], new IdempotencyStore(redis, { keyPrefix: prefix }))[0]).toBe(get);
  });
});

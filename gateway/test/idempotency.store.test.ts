import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { IdempotencyStore, type IdempotencyStoreOptions } from '../src/idempotency/idempotency.store.js';
import { withIdempotency } from '../src/idempotency/idempotent.routes.js';
import { defineRoute, type ApiRequest, type ApiResponse } from '../src/routing/route.types.js';
import { useTestRedis } from './support/test-redis.js';

const testRedis = useTestRedis('idem');
const { prefix } = testRedis;

const request = (key: string, body: unknown, caller: { userId?: string; appId?: string } = { userId: '7' }): ApiRequest =>
  ({ method: 'POST', params: {}, query: new URLSearchParams(), body, idempotencyKey: key, caller: { requestId: 'r', ...caller, scopes: [] }, selfLink: 'http://x/api/v1/things' }) as ApiRequest;

/** A POST route whose handler answers from `answers` in turn (an Error is thrown), counting its runs. */
function route(answers: (ApiResponse | Error)[], options: IdempotencyStoreOptions = {}) {
  let runs = 0;
  const definition = defineRoute({
    method: 'POST',
    path: '/things',
    handler: () => {
      const next = answers[Math.min(runs++, answers.length - 1)] as ApiResponse | Error;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  });
  const [wrapped] = withIdempotency([definition], new IdempotencyStore(testRedis.redis, { keyPrefix: prefix, ...options }));
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

  it('keeps a large answer as its digest and resource identifier, not its body', async () => {
    const large: ApiResponse = { status: 201, headers: { Location: 'http://x/api/v1/things/9' }, document: { data: { type: 'thing', id: '9', attributes: { text: 'x'.repeat(20_000) } }, links: { self: 'http://x/api/v1/things/9' } } };
    const thing = route([large], { maxKeptBodyBytes: 1_000 });
    const key = randomUUID();
    expect(await thing.handler(request(key, {}))).toEqual(large);
    const stored = (await testRedis.redis.keys(`${prefix}*`)).map((name) => name).filter((name) => !name.includes('#count'));
    const sizes = await Promise.all(stored.map((name) => testRedis.redis.strlen(name)));
    expect(Math.max(...sizes)).toBeLessThan(1_000);
    const replayed = await thing.handler(request(key, {}));
    expect(replayed.status).toBe(201);
    expect(replayed.headers).toMatchObject({ Location: 'http://x/api/v1/things/9', 'Idempotent-Replayed': 'true' });
    expect(replayed.document).toEqual({ data: { type: 'thing', id: '9' }, links: { self: 'http://x/api/v1/things/9' }, meta: { body_omitted: true, body_sha256: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } });
    expect(thing.runs()).toBe(1);
  });

  it('scopes keys to the user and the app: the same key from another app of the user runs again', async () => {
    const thing = route([created]);
    const key = randomUUID();
    await thing.handler(request(key, {}, { userId: '8', appId: '1' }));
    await thing.handler(request(key, {}, { userId: '8', appId: '2' }));
    expect(thing.runs()).toBe(2);
    expect((await thing.handler(request(key, {}, { userId: '8', appId: '1' }))).headers).toMatchObject({ 'Idempotent-Replayed': 'true' });
    expect(thing.runs()).toBe(2);
  });

  it('refuses a caller over its budget of new keys with 429 and Retry-After, and spares other callers', async () => {
    const thing = route([created], { maxKeysPerCaller: 2 });
    const caller = { userId: randomUUID() };
    const first = randomUUID();
    await thing.handler(request(first, {}, caller));
    await thing.handler(request(randomUUID(), {}, caller));
    const refusal = thing.handler(request(randomUUID(), {}, caller));
    await expect(refusal).rejects.toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, details: [{ reason: 'rate_limited', retryAfterSeconds: expect.any(Number) }] });
    // A replay of a key already kept costs nothing, and another caller has a budget of its own.
    expect((await thing.handler(request(first, {}, caller))).headers).toMatchObject({ 'Idempotent-Replayed': 'true' });
    expect((await thing.handler(request(randomUUID(), {}, { userId: randomUUID() }))).status).toBe(201);
    expect(thing.runs()).toBe(3);
  });

  it('leaves other methods alone and runs a POST without a key every time', async () => {
    const thing = route([created]);
    const bare = { ...request('x', {}) } as { idempotencyKey?: string };
    delete bare.idempotencyKey;
    await thing.handler(bare as ApiRequest);
    await thing.handler(bare as ApiRequest);
    expect(thing.runs()).toBe(2);
    const get = defineRoute({ method: 'GET', path: '/things', handler: () => Promise.resolve(created) });
    expect(withIdempotency([get], new IdempotencyStore(testRedis.redis, { keyPrefix: prefix }))[0]).toBe(get);
  });
});

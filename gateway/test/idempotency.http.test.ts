import { createRedis, type Redis } from '@inkwell/redis';
import { createTestUser, HOSTILE_MARKDOWN, stackEnv, type TestUser } from '@inkwell/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayStack, type GatewayStack } from './gateway.stack.js';
import { answer, expectError, JsonApiClient, ok, walkPages, type Answer } from './support/json-api-client.js';

const DATABASE = 'inkwell_test_gateway_idempotency';

let stack: GatewayStack;
let client: JsonApiClient;
let redis: Redis;
let author: TestUser;
let other: TestUser;
let run = 0;

beforeAll(async () => {
  stack = await startGatewayStack(DATABASE);
  redis = createRedis(stackEnv().redisUrl);
  client = new JsonApiClient(stack.system.apiUrl, () => author.token);
  [author, other] = await Promise.all([createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] }), createTestUser(stack.system, { scopes: ['write_stories', 'read_stories'] })]);
}, 300_000);

afterAll(async () => {
  await redis?.quit();
  await stack?.stop();
});

/** A key no other test uses. */
const newKey = (): string => `key-${Date.now()}-${++run}`;
const storyBody = (title: string, description = '') => ({ data: { type: 'story' as const, attributes: { title, description } } });
/** POST /stories through the typed client: the Idempotency-Key header is a parameter of the API document. */
const post = async (body: ReturnType<typeof storyBody>, key: string | undefined, token = author.token): Promise<Answer> =>
  answer(await client.typed.POST('/stories', { body, params: { header: key === undefined ? {} : { 'Idempotency-Key': key } }, headers: client.auth(token) }));
/** A raw POST /stories, for bodies the document says are invalid. */
const postRaw = (body: unknown, key: string): Promise<Answer> => client.call('POST', '/stories', { body, headers: { 'Idempotency-Key': key } });
const myStoriesTitled = async (title: string, token = author.token): Promise<string[]> =>
  (await walkPages((next) => client.as(token).GET('/users/{id}/stories', { params: { path: { id: 'me' }, query: { 'page[size]': 100 } }, ...next }))).filter((story) => story.attributes.title === title).map((story) => story.id);

describe('Idempotency-Key on POST (docs/api/foundation.md, "Idempotent POSTs")', () => {
  it('answers a repeated request with the first answer, marked as a replay, and creates once', async () => {
    const key = newKey();
    const first = await post(storyBody('Once only'), key);
    const created = ok(first, 201).data!;
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const again = await post(storyBody('Once only'), key);
    expect(ok(again, 201)).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    // Member order does not make two bodies differ.
    const reordered = await postRaw({ data: { attributes: { description: '', title: 'Once only' }, type: 'story' } }, key);
    expect(ok(reordered, 201).data!.id).toBe(created.id);
    expect(await myStoriesTitled('Once only')).toEqual([created.id]);
  });

  it('creates again without a key', async () => {
    ok(await post(storyBody('Twice'), undefined), 201);
    ok(await post(storyBody('Twice'), undefined), 201);
    expect(await myStoriesTitled('Twice')).toHaveLength(2);
  });

  it('refuses the same key with another body as 422 idempotency_key_reused', async () => {
    const key = newKey();
    ok(await post(storyBody('First body'), key), 201);
    expectError(await post(storyBody('Second body'), key), 422, 'idempotency_key_reused', { header: 'Idempotency-Key' });
    expect(await myStoriesTitled('Second body')).toEqual([]);
  });

  it('scopes keys to the caller: another user with the same key gets an answer of their own', async () => {
    const key = newKey();
    const mine = ok(await post(storyBody('Shared key'), key), 201).data!;
    const theirs = await post(storyBody('Shared key'), key, other.token);
    expect(ok(theirs, 201).data!.id).not.toBe(mine.id);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('replays a client error too, and keeps nothing for a key that is too long or not printable', async () => {
    const key = newKey();
    expectError(await postRaw({ data: { type: 'story', attributes: {} } }, key), 422, 'validation_failed', { pointer: '/data/attributes/title' });
    const replayed = await postRaw({ data: { type: 'story', attributes: {} } }, key);
    expectError(replayed, 422, 'validation_failed', { pointer: '/data/attributes/title' });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    expectError(await post(storyBody('Long key'), 'k'.repeat(256)), 400, 'invalid_parameter', { header: 'Idempotency-Key' });
    expectError(await post(storyBody('Long key'), 'two words'), 400, 'invalid_parameter', { header: 'Idempotency-Key' });
    ok(await post(storyBody('Long key'), 'k'.repeat(255)), 201);
    expect(await myStoriesTitled('Long key')).toHaveLength(1);
  });

  it('answers 409 idempotency_key_in_use while the first request with the key still runs', async () => {
    const key = newKey();
    const body = storyBody('Slow story', HOSTILE_MARKDOWN);
    const answers = await Promise.all([post(body, key), post(body, key)]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([409, 422]);
    const busy = answers.find((answer) => answer.status === 409) as Answer;
    expectError(busy, 409, 'idempotency_key_in_use', { header: 'Idempotency-Key' });
    const refused = answers.find((answer) => answer.status === 422) as Answer;
    expectError(refused, 422, 'validation_failed', { pointer: '/data/attributes/description' });
    // Once it has answered, the key gives that answer.
    const later = await post(body, key);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body).toEqual(refused.body);
  });

  it("keeps answers 24 hours under the system's Redis key prefix", async () => {
    const key = newKey();
    ok(await post(storyBody('Stored'), key), 201);
    const keys = await redis.keys(`${stack.system.redisKeyPrefix}inkwell:idem:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const stored of keys) {
      expect(stored.includes(key)).toBe(false);
      const ttl = await redis.ttl(stored);
      expect(ttl).toBeGreaterThan(86_000);
      expect(ttl).toBeLessThanOrEqual(86_400);
    }
  });
});

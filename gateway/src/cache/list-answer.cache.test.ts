import { describe, expect, it } from 'vitest';
import { ListAnswerCache } from './list-answer.cache.js';

interface Answer {
  readonly authors: readonly string[];
  readonly call: number;
}

/** A backend that counts its calls and answers with the given authors. */
function backend(authors: readonly string[] = ['1']) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    fetch: async (): Promise<Answer> => ({ authors, call: ++calls }),
  };
}

/** `personal` of a caller: they are an author on the answer. */
const readerIs = (userId: string) => (answer: Answer) => answer.authors.includes(userId);

function setup(options: { ttlMs?: number; maxEntries?: number; maxBytes?: number } = {}) {
  let now = 1_000;
  const cache = new ListAnswerCache<Answer>({ ttlMs: options.ttlMs ?? 200, maxEntries: options.maxEntries ?? 10, maxBytes: options.maxBytes ?? 1024 * 1024, now: () => now });
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('ListAnswerCache', () => {
  it('serves an answer for the TTL and asks the backend again once it is over', async () => {
    const { cache, advance } = setup();
    const service = backend();
    expect((await cache.get('k', service.fetch, readerIs('9'))).call).toBe(1);
    advance(199);
    expect((await cache.get('k', service.fetch, readerIs('9'))).call).toBe(1);
    advance(1);
    expect((await cache.get('k', service.fetch, readerIs('9'))).call).toBe(2);
  });

  it('keeps answers of other keys apart', async () => {
    const { cache } = setup();
    const service = backend();
    await cache.get('a', service.fetch, readerIs('9'));
    await cache.get('b', service.fetch, readerIs('9'));
    expect(service.calls).toBe(2);
  });

  it('gives an author on a cached answer a fresh one from the backend, and stores nothing they fetched', async () => {
    const { cache } = setup();
    const service = backend(['1']);
    await cache.get('k', service.fetch, readerIs('9'));
    expect((await cache.get('k', service.fetch, readerIs('1'))).call).toBe(2);
    expect((await cache.get('k', service.fetch, readerIs('9'))).call).toBe(1);

    const fresh = setup();
    const own = backend(['1']);
    await fresh.cache.get('k', own.fetch, readerIs('1'));
    expect(fresh.cache.size).toBe(0);
    expect((await fresh.cache.get('k', own.fetch, readerIs('9'))).call).toBe(2);
  });

  it('makes concurrent misses of one key share one backend call, unless the caller of that call is an author on it', async () => {
    const { cache } = setup();
    const service = backend(['1']);
    const shared = await Promise.all([cache.get('k', service.fetch, readerIs('9')), cache.get('k', service.fetch, readerIs('8')), cache.get('k', service.fetch, readerIs('1'))]);
    expect(shared.map((answer) => answer.call)).toEqual([1, 1, 2]);

    const other = setup();
    const own = backend(['1']);
    const separate = await Promise.all([other.cache.get('k', own.fetch, readerIs('1')), other.cache.get('k', own.fetch, readerIs('9'))]);
    expect(separate.map((answer) => answer.call)).toEqual([1, 2]);
  });

  it('stores no error; callers who waited for the failed call get it', async () => {
    const { cache } = setup();
    let calls = 0;
    const failing = async (): Promise<Answer> => {
      calls++;
      throw new Error('unavailable');
    };
    const results = await Promise.allSettled([cache.get('k', failing, readerIs('9')), cache.get('k', failing, readerIs('8'))]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(cache.size).toBe(0);
    const service = backend();
    expect((await cache.get('k', service.fetch, readerIs('9'))).call).toBe(1);
  });

  it('holds at most maxEntries answers, dropping the oldest and the expired first', async () => {
    const { cache, advance } = setup({ maxEntries: 2 });
    const service = backend();
    await cache.get('a', service.fetch, readerIs('9'));
    await cache.get('b', service.fetch, readerIs('9'));
    await cache.get('c', service.fetch, readerIs('9'));
    expect(cache.size).toBe(2);
    await cache.get('a', service.fetch, readerIs('9'));
    expect(service.calls).toBe(4);
    advance(200);
    await cache.get('d', service.fetch, readerIs('9'));
    expect(cache.size).toBe(1);
  });
});

describe('ListAnswerCache byte bound', () => {
  it('holds at most maxBytes of answers and never keeps one answer larger than an eighth of it', async () => {
    const answers = new Map<string, { text: string }>();
    const cache = new ListAnswerCache<{ text: string }>({ ttlMs: 1_000, maxEntries: 100, maxBytes: 8_000 });
    const fetchOf = (key: string, bytes: number) => async () => answers.get(key) ?? { text: 'x'.repeat(bytes) };
    for (const key of 'abcdefghij') await cache.get(key, fetchOf(key, 900), () => false);
    // Nine answers of 900 bytes would be 8,100: the two oldest went.
    expect(cache.size).toBe(8);
    expect(cache.bytes).toBe(7_200);
    await cache.get('huge', fetchOf('huge', 1_001), () => false);
    expect(cache.size).toBe(8);
  });

  it('clear() drops every answer: the next caller gets a fresh one', async () => {
    const { cache } = setup();
    const service = backend();
    await cache.get('a', service.fetch, readerIs('9'));
    await cache.get('b', service.fetch, readerIs('9'));
    cache.clear();
    expect(cache.size).toBe(0);
    expect((await cache.get('a', service.fetch, readerIs('9'))).call).toBe(3);
  });

  it('does not keep, or share with later callers, an answer fetched before clear()', async () => {
    const { cache } = setup();
    let release: () => void = () => {};
    let calls = 0;
    const slow = () => new Promise<Answer>((resolve) => (release = () => resolve({ authors: ['1'], call: ++calls })));
    const before = cache.get('k', slow, readerIs('9'));
    cache.clear();
    const after = cache.get('k', async () => ({ authors: ['1'], call: ++calls }), readerIs('9'));
    expect((await after).call).toBe(1);
    release();
    expect((await before).call).toBe(2);
    // Neither the answer fetched before clear() nor its late arrival replaced what came after.
    expect((await cache.get('k', async () => ({ authors: ['1'], call: ++calls }), readerIs('9'))).call).toBe(1);
  });
});

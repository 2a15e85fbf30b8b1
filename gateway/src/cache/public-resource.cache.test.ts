import { describe, expect, it } from 'vitest';
import { PublicResourceCache } from './public-resource.cache.js';

/** The generation the entries of these tests are read in. */
const G = '0';

function liveCache(now = () => 0, maxEntries = 10): PublicResourceCache {
  const cache = new PublicResourceCache({ maxEntries, maxBytes: 1024 * 1024, ttlMs: 1_000, now });
  cache.setLive(true);
  return cache;
}

describe('PublicResourceCache', () => {
  it('serves nothing until live, and forgets everything when it goes off', () => {
    const cache = new PublicResourceCache({ maxEntries: 10, maxBytes: 1024 * 1024, ttlMs: 1_000 });
    cache.store('story:1', 'a', cache.begin(), G);
    expect(cache.get('story:1', G)).toBeUndefined();
    cache.setLive(true);
    cache.store('story:1', 'a', cache.begin(), G);
    expect(cache.get('story:1', G)).toBe('a');
    cache.setLive(false);
    cache.setLive(true);
    expect(cache.get('story:1', G)).toBeUndefined();
  });

  it('refuses a fill that started before an invalidation of its key, not of another key', () => {
    const cache = liveCache();
    const ticket = cache.begin();
    cache.invalidate('story:1');
    cache.store('story:1', 'old', ticket, G);
    cache.store('story:2', 'other', ticket, G);
    expect(cache.get('story:1', G)).toBeUndefined();
    expect(cache.get('story:2', G)).toBe('other');
    cache.store('story:1', 'new', cache.begin(), G);
    expect(cache.get('story:1', G)).toBe('new');
  });

  it('expires entries after the TTL', () => {
    let time = 0;
    const cache = liveCache(() => time);
    cache.store('user:1', 'u', cache.begin(), G);
    time = 999;
    expect(cache.get('user:1', G)).toBe('u');
    time = 1_000;
    expect(cache.get('user:1', G)).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the oldest, and still refuses racing fills after pruning its invalidation log', () => {
    const cache = liveCache(() => 0, 2);
    for (const id of ['1', '2', '3']) cache.store(`story:${id}`, id, cache.begin(), G);
    expect([cache.get('story:1', G), cache.get('story:2', G), cache.get('story:3', G)]).toEqual([undefined, '2', '3']);
    const ticket = cache.begin();
    for (const id of ['4', '5', '6']) cache.invalidate(`story:${id}`);
    cache.store('story:4', 'old', ticket, G);
    expect(cache.get('story:4', G)).toBeUndefined();
  });

  it('serves an entry only in the generation it was stored in', () => {
    const cache = liveCache();
    cache.store('story:1', 'a', cache.begin(), '3');
    expect(cache.get('story:1', '3')).toBe('a');
    expect(cache.get('story:1', '4')).toBeUndefined();
  });
});

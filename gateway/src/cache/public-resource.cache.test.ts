import { describe, expect, it } from 'vitest';
import { PublicResourceCache } from './public-resource.cache.js';

function liveCache(now = () => 0, maxEntries = 10): PublicResourceCache {
  const cache = new PublicResourceCache({ maxEntries, maxBytes: 1024 * 1024, ttlMs: 1_000, now });
  cache.setLive(true);
  return cache;
}

describe('PublicResourceCache', () => {
  it('serves nothing until live, and forgets everything when it goes off', () => {
    const cache = new PublicResourceCache({ maxEntries: 10, maxBytes: 1024 * 1024, ttlMs: 1_000 });
    cache.store('story:1', 'a', cache.begin());
    expect(cache.get('story:1')).toBeUndefined();
    cache.setLive(true);
    cache.store('story:1', 'a', cache.begin());
    expect(cache.get('story:1')).toBe('a');
    cache.setLive(false);
    cache.setLive(true);
    expect(cache.get('story:1')).toBeUndefined();
  });

  it('refuses a fill that started before an invalidation of its key, not of another key', () => {
    const cache = liveCache();
    const ticket = cache.begin();
    cache.invalidate('story:1');
    cache.store('story:1', 'old', ticket);
    cache.store('story:2', 'other', ticket);
    expect(cache.get('story:1')).toBeUndefined();
    expect(cache.get('story:2')).toBe('other');
    cache.store('story:1', 'new', cache.begin());
    expect(cache.get('story:1')).toBe('new');
  });

  it('expires entries after the TTL', () => {
    let time = 0;
    const cache = liveCache(() => time);
    cache.store('user:1', 'u', cache.begin());
    time = 999;
    expect(cache.get('user:1')).toBe('u');
    time = 1_000;
    expect(cache.get('user:1')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the oldest, and still refuses racing fills after pruning its invalidation log', () => {
    const cache = liveCache(() => 0, 2);
    for (const id of ['1', '2', '3']) cache.store(`story:${id}`, id, cache.begin());
    expect([cache.get('story:1'), cache.get('story:2'), cache.get('story:3')]).toEqual([undefined, '2', '3']);
    const ticket = cache.begin();
    for (const id of ['4', '5', '6']) cache.invalidate(`story:${id}`);
    cache.store('story:4', 'old', ticket);
    expect(cache.get('story:4')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { TokenCache } from './token.cache.js';

describe('TokenCache', () => {
  it('serves an entry until its deadline and forgets it afterwards', () => {
    const cache = new TokenCache<string>(10);
    cache.set('a', 'alice', 1_000, 0);
    expect(cache.get('a', 999)).toBe('alice');
    expect(cache.get('a', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stores nothing whose deadline has already passed', () => {
    const cache = new TokenCache<string>(10);
    cache.set('a', 'alice', 500, 500);
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new TokenCache<string>(2);
    cache.set('a', 'alice', 10_000, 0);
    cache.set('b', 'bob', 10_000, 0);
    expect(cache.get('a', 1)).toBe('alice');
    cache.set('c', 'carol', 10_000, 1);
    expect(cache.get('b', 2)).toBeUndefined();
    expect(cache.get('a', 2)).toBe('alice');
    expect(cache.get('c', 2)).toBe('carol');
    expect(cache.size).toBe(2);
  });

  it('replaces an entry without growing and deletes on request', () => {
    const cache = new TokenCache<string>(2);
    cache.set('a', 'alice', 10_000, 0);
    cache.set('a', 'alice again', 10_000, 0);
    expect(cache.size).toBe(1);
    expect(cache.get('a', 1)).toBe('alice again');
    expect(cache.delete('a')).toBe(true);
    expect(cache.delete('a')).toBe(false);
    expect(cache.get('a', 1)).toBeUndefined();
  });

  it('clears everything', () => {
    const cache = new TokenCache<number>(5);
    for (let i = 0; i < 5; i++) cache.set(String(i), i, 10_000, 0);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.get('0', 1)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { BoundedEntries } from './bounded-entries.js';

describe('BoundedEntries', () => {
  it('answers a value until its expiry, and nothing after', () => {
    const entries = new BoundedEntries<string, string>({ maxEntries: 10, maxBytes: 1000 });
    entries.set('a', 'one', 2_000, 1_000);
    expect(entries.get('a', 1_999)).toBe('one');
    expect(entries.get('a', 2_000)).toBeUndefined();
    expect(entries.size).toBe(0);
  });

  it('drops the expired values when it stores another, even below its bounds', () => {
    const entries = new BoundedEntries<string, string>({ maxEntries: 10, maxBytes: 1000 });
    entries.set('a', 'one', 1_500, 1_000);
    entries.set('b', 'two', 1_500, 1_000);
    entries.set('c', 'three', 3_000, 1_000);
    entries.set('d', 'four', 4_000, 2_000);
    expect(entries.size).toBe(2);
    expect(entries.get('c', 2_000)).toBe('three');
  });

  it('makes room by dropping the oldest stored when full in number or in bytes', () => {
    const byCount = new BoundedEntries<string, string>({ maxEntries: 2, maxBytes: 1000 });
    for (const key of ['a', 'b', 'c']) byCount.set(key, key, 9_000, 1_000);
    expect([byCount.get('a', 1_000), byCount.get('b', 1_000), byCount.get('c', 1_000)]).toEqual([undefined, 'b', 'c']);

    const byBytes = new BoundedEntries<string, string>({ maxEntries: 100, maxBytes: 80 });
    for (const key of 'abcdefgh') byBytes.set(key, key.repeat(10), 9_000, 1_000);
    expect(byBytes.bytes).toBe(80);
    byBytes.set('i', 'i'.repeat(10), 9_000, 1_000);
    expect([byBytes.get('a', 1_000), byBytes.get('b', 1_000), byBytes.get('i', 1_000)]).toEqual([undefined, 'b'.repeat(10), 'i'.repeat(10)]);
    expect(byBytes.bytes).toBe(80);
  });

  it('refuses a value larger than an eighth of its byte bound, and one that has expired already', () => {
    const entries = new BoundedEntries<string, string>({ maxEntries: 10, maxBytes: 80 });
    expect(entries.set('big', 'x'.repeat(11), 9_000, 1_000)).toBe(false);
    expect(entries.set('late', 'x', 1_000, 1_000)).toBe(false);
    expect(entries.set('fits', 'x'.repeat(10), 9_000, 1_000)).toBe(true);
    expect(entries.size).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { decodePosition, DEFAULT_PAGE_SIZE, encodePosition, pageSizeOf } from './page.js';

describe('list positions', () => {
  it('round-trips a shelf position and an item position', () => {
    expect(decodePosition('shelves', encodePosition('shelves', { key: -5, id: '42' }))).toEqual({ key: -5, id: '42' });
    const added = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    expect(decodePosition('items', encodePosition('items', { key: added, id: '9007199254740993' }))).toEqual({ key: added, id: '9007199254740993' });
  });

  it('refuses a position made for the other list', () => {
    expect(decodePosition('items', encodePosition('shelves', { key: 1, id: '1' }))).toBeUndefined();
    expect(decodePosition('shelves', encodePosition('items', { key: 1, id: '1' }))).toBeUndefined();
  });

  it('refuses garbage, bad ids and keys out of range', () => {
    const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    expect(decodePosition('shelves', 'not base64 json')).toBeUndefined();
    expect(decodePosition('shelves', raw(['shelves', 1, '0']))).toBeUndefined();
    expect(decodePosition('shelves', raw(['shelves', 1, 'abc']))).toBeUndefined();
    expect(decodePosition('shelves', raw(['shelves', 2 ** 31, '1']))).toBeUndefined();
    expect(decodePosition('shelves', raw(['shelves', 1.5, '1']))).toBeUndefined();
    expect(decodePosition('items', raw(['items', '1', '1']))).toBeUndefined();
    expect(decodePosition('items', raw(['items', 1, '1', 'extra']))).toBeUndefined();
  });
});

describe('page sizes', () => {
  it('takes 0 as the default and any other size as asked', () => {
    expect(pageSizeOf(0)).toBe(DEFAULT_PAGE_SIZE);
    expect(pageSizeOf(1)).toBe(1);
    expect(pageSizeOf(100)).toBe(100);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeAfter, encodeAfter, isNotificationId, KIND_CODES, kindOfCode, pageSizeOf, reasonsOfBits, REASON_BITS } from './notification.js';

describe('the page position', () => {
  it('round-trips the last id of a page', () => {
    expect(decodeAfter(encodeAfter('12345'))).toBe('12345');
  });

  it('refuses what encodeAfter did not write', () => {
    for (const after of ['12345', 'n', 'n0', 'n-1', 'n1.5', 'nabc', 'n99999999999999999999', 'x12']) expect(decodeAfter(after)).toBeUndefined();
  });
});

describe('page sizes', () => {
  it('defaults to 20 and keeps 1–100', () => {
    expect(pageSizeOf(0)).toBe(20);
    expect(pageSizeOf(1)).toBe(1);
    expect(pageSizeOf(100)).toBe(100);
  });
});

describe('stored codes', () => {
  it('maps every kind to its proto number and back', () => {
    expect(Object.values(KIND_CODES)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const [kind, code] of Object.entries(KIND_CODES)) expect(kindOfCode(code)).toBe(kind);
    expect(kindOfCode(0)).toBeUndefined();
  });

  it('reads the reason bits in order', () => {
    expect(reasonsOfBits(0)).toEqual([]);
    expect(reasonsOfBits(REASON_BITS.bookshelf)).toEqual(['bookshelf']);
    expect(reasonsOfBits(REASON_BITS.bookshelf | REASON_BITS.followed_author)).toEqual(['followed_author', 'bookshelf']);
  });

  it('knows a storage id', () => {
    expect(isNotificationId('1')).toBe(true);
    expect(isNotificationId('9223372036854775807')).toBe(true);
    expect(isNotificationId('9223372036854775808')).toBe(false);
    expect(isNotificationId('01')).toBe(false);
  });
});

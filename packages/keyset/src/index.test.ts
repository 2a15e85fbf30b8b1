import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './index.js';

describe('keyset cursors', () => {
  it('round-trips the fields of a position, opaque and URL-safe', () => {
    const text = encodeCursor('rating.desc', ['4.5', '12', null, 7]);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('rating.desc', text, 4)).toEqual(['4.5', '12', null, 7]);
  });

  it('refuses a position made for another list or with another number of fields', () => {
    const text = encodeCursor('shelves', [1, '2']);
    expect(decodeCursor('items', text, 2)).toBeUndefined();
    expect(decodeCursor('shelves', text, 3)).toBeUndefined();
  });

  it('refuses what it did not make', () => {
    expect(decodeCursor('shelves', '', 2)).toBeUndefined();
    expect(decodeCursor('shelves', 'not base64!', 2)).toBeUndefined();
    expect(decodeCursor('shelves', Buffer.from('{"a":1}').toString('base64url'), 2)).toBeUndefined();
    expect(decodeCursor('shelves', Buffer.from('["shelves",{},"2"]').toString('base64url'), 2)).toBeUndefined();
    expect(decodeCursor('shelves', encodeCursor('shelves', ['x'.repeat(3_000), '2']), 2)).toBeUndefined();
  });
});

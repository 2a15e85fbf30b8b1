import { describe, expect, it } from 'vitest';
import { decodePosition, encodePosition, lookupIds, pageLimit } from './list.js';
import { isEntityId } from './story.js';

describe('pageLimit', () => {
  it('defaults 0 to 20 and keeps any other size', () => {
    expect(pageLimit(0)).toBe(20);
    expect(pageLimit(1)).toBe(1);
    expect(pageLimit(100)).toBe(100);
  });
});

describe('lookupIds', () => {
  it('keeps each id once, in first-seen order, without those that cannot exist', () => {
    expect(lookupIds(['3', 'x', '1', '3', '0'], (id) => /^[1-9][0-9]*$/.test(id))).toEqual(['3', '1']);
  });
});

describe('positions', () => {
  it('round-trip for the sort they were made for', () => {
    const after = encodePosition({ sort: 'rating.desc', key: '87', id: '12345' });
    expect(after).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePosition(after, 'rating.desc', isEntityId)).toEqual({ sort: 'rating.desc', key: '87', id: '12345' });
  });

  it('keep timestamps and null keys intact', () => {
    const key = '2026-11-21 19:00:00.123456+00';
    expect(decodePosition(encodePosition({ sort: 'date_published.asc', key, id: '1' }), 'date_published.asc', isEntityId)?.key).toBe(key);
    expect(decodePosition(encodePosition({ sort: 'catalogue.asc', key: null, id: 'c:12' }), 'catalogue.asc', (id) => id === 'c:12')).toEqual({ sort: 'catalogue.asc', key: null, id: 'c:12' });
  });

  it('keep a date_added position: the exact timestamp and the item id', () => {
    const position = { sort: 'date_added.desc', key: '2026-03-01 10:00:00.123456+00', id: '90071' };
    expect(decodePosition(encodePosition(position), 'date_added.desc', isEntityId)).toEqual(position);
    expect(decodePosition(encodePosition(position), 'date_added.asc', isEntityId)).toBeUndefined();
  });

  it('reject another sort, garbage, tampered ids and ids the list does not use', () => {
    const after = encodePosition({ sort: 'rating.desc', key: '87', id: '12345' });
    expect(decodePosition(after, 'rating.asc', isEntityId)).toBeUndefined();
    expect(decodePosition('not json!', 'rating.desc', isEntityId)).toBeUndefined();
    expect(decodePosition(Buffer.from('[1,2,3]').toString('base64url'), 'rating.desc', isEntityId)).toBeUndefined();
    expect(decodePosition(encodePosition({ sort: 'rating.desc', key: '1', id: '1; DROP TABLE' }), 'rating.desc', isEntityId)).toBeUndefined();
    expect(decodePosition(encodePosition({ sort: 'catalogue.asc', key: null, id: 'c:12' }), 'catalogue.asc', isEntityId)).toBeUndefined();
  });
});

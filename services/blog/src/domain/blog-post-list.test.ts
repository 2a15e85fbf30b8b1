import { describe, expect, it } from 'vitest';
import { decodeKeyset, encodeKeyset } from './blog-post-list.js';

describe('keyset cursors', () => {
  const byDate = { field: 'date_posted', direction: 'desc' } as const;

  it('round-trips for the sort that made it', () => {
    const keyset = { value: '1700000000123', id: '42' };
    expect(decodeKeyset(byDate, encodeKeyset(byDate, keyset))).toEqual(keyset);
    const byRelevance = { field: 'relevance', direction: 'desc' } as const;
    expect(decodeKeyset(byRelevance, encodeKeyset(byRelevance, { value: '6.07927e-05', id: '7' }))).toEqual({ value: '6.07927e-05', id: '7' });
  });

  it('refuses a cursor made for another field or direction', () => {
    const text = encodeKeyset(byDate, { value: '1', id: '1' });
    expect(decodeKeyset({ field: 'date_posted', direction: 'asc' }, text)).toBeUndefined();
    expect(decodeKeyset({ field: 'num_views', direction: 'desc' }, text)).toBeUndefined();
  });

  it('refuses garbage and ill-formed values', () => {
    expect(decodeKeyset(byDate, 'not-a-cursor')).toBeUndefined();
    expect(decodeKeyset(byDate, Buffer.from('["date_posted","desc","1; DROP","1"]').toString('base64url'))).toBeUndefined();
    expect(decodeKeyset(byDate, Buffer.from('["date_posted","desc","1","0"]').toString('base64url'))).toBeUndefined();
    expect(decodeKeyset({ field: 'num_views', direction: 'desc' }, Buffer.from('["num_views","desc","-1","3"]').toString('base64url'))).toBeUndefined();
  });
});

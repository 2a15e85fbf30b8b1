import { describe, expect, it } from 'vitest';
import { assertIdentifier, quoteIdentifier } from './identifier.js';

describe('assertIdentifier', () => {
  it('accepts plain lower-case names', () => {
    expect(assertIdentifier('stories')).toBe('stories');
    expect(assertIdentifier('_t1_bookshelves')).toBe('_t1_bookshelves');
  });

  it.each(['', 'Stories', '1abc', 'a-b', 'a b', 'a";drop table x;--', 'x'.repeat(64)])('refuses %j', (name) => {
    expect(() => assertIdentifier(name, 'schema name')).toThrow(/Invalid schema name/);
  });

  it('quotes a valid identifier', () => {
    expect(quoteIdentifier('users')).toBe('"users"');
  });
});

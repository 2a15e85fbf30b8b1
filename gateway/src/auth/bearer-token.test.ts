import { describe, expect, it } from 'vitest';
import { bearerToken, MAX_BEARER_LENGTH } from './bearer-token.js';

describe('bearerToken', () => {
  it('returns the token of a Bearer header, the scheme in any case', () => {
    expect(bearerToken('Bearer iw_at_abc-DEF_123')).toBe('iw_at_abc-DEF_123');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER a.b~c+d/e==')).toBe('a.b~c+d/e==');
  });

  it.each([
    ['empty', ''],
    ['the scheme alone', 'Bearer'],
    ['an empty value', 'Bearer '],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a scheme that only starts like Bearer', 'Bearerx abc'],
    ['two spaces', 'Bearer  abc'],
    ['spaces inside', 'Bearer abc def'],
    ['a comma (two headers joined)', 'Bearer abc, Bearer def'],
    ['non-ASCII', 'Bearer abcé'],
    ['padding only', 'Bearer ==='],
    ['padding in the middle', 'Bearer ab=c'],
    ['too long', `Bearer ${'a'.repeat(MAX_BEARER_LENGTH + 1)}`],
  ])('rejects %s', (_label, header) => {
    expect(bearerToken(header)).toBeUndefined();
  });

  it('accepts a value of exactly the maximum length', () => {
    expect(bearerToken(`Bearer ${'a'.repeat(MAX_BEARER_LENGTH)}`)).toHaveLength(MAX_BEARER_LENGTH);
  });
});

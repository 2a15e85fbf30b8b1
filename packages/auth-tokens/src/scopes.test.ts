import { describe, expect, it } from 'vitest';
import { isScope, parseScopes, SCOPE_NAMES, SCOPES } from './scopes.js';

describe('SCOPES', () => {
  it('are the twelve scopes of docs/api/accounts.md, each explained', () => {
    expect(SCOPE_NAMES).toEqual([
      'read_stories', 'write_stories', 'read_bookshelves', 'write_bookshelves', 'write_blog_posts',
      'read_user', 'write_user', 'read_pms', 'write_pms', 'write_comments', 'write_ratings',
      'read_notifications',
    ]);
    for (const name of SCOPE_NAMES) expect(SCOPES[name].length).toBeGreaterThan(10);
  });

  it('does not take inherited object keys for scopes', () => {
    expect(isScope('toString')).toBe(false);
    expect(isScope('__proto__')).toBe(false);
    expect(isScope('read_user')).toBe(true);
  });
});

describe('parseScopes', () => {
  it('splits on any whitespace, dedupes and separates unknown names', () => {
    expect(parseScopes('  read_user\twrite_user read_user\nbogus  bogus constructor')).toEqual({
      scopes: ['read_user', 'write_user'],
      unknown: ['bogus', 'constructor'],
    });
  });

  it('reads an empty or blank value as no scopes', () => {
    expect(parseScopes('')).toEqual({ scopes: [], unknown: [] });
    expect(parseScopes('   ')).toEqual({ scopes: [], unknown: [] });
  });

  it('is case-sensitive, as RFC 6749 scope tokens are', () => {
    expect(parseScopes('READ_USER')).toEqual({ scopes: [], unknown: ['READ_USER'] });
  });
});

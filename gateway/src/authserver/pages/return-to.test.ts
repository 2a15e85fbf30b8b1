import { describe, expect, it } from 'vitest';
import { safeReturnTo } from './return-to.js';

describe('safeReturnTo', () => {
  it('keeps our authorization requests, the developer page and the authorized-apps page', () => {
    expect(safeReturnTo('/oauth/authorize?client_id=x&state=y')).toBe('/oauth/authorize?client_id=x&state=y');
    expect(safeReturnTo('/developer')).toBe('/developer');
    expect(safeReturnTo('/authorizations')).toBe('/authorizations');
  });

  it.each(['https://evil.example/', '//evil.example/x', '/\\evil.example', '/oauth/authorize\\@evil', 'javascript:alert(1)', '/signin', '/authorizations/revoke', '/oauth/authorizex', '/oauth/authorize?\nSet-Cookie:x', ''])(
    'turns %j into the developer page',
    (value) => {
      expect(safeReturnTo(value)).toBe('/developer');
    },
  );

  it('treats a missing value as the developer page', () => {
    expect(safeReturnTo(null)).toBe('/developer');
    expect(safeReturnTo(undefined)).toBe('/developer');
  });
});

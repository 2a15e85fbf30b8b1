import { describe, expect, it } from 'vitest';
import { requestIdFrom } from './request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFrom', () => {
  it('echoes a sane client id', () => {
    expect(requestIdFrom('abc-123_X.y')).toBe('abc-123_X.y');
    expect(requestIdFrom('a'.repeat(128))).toBe('a'.repeat(128));
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'a'.repeat(129)],
    ['with spaces', 'abc def'],
    ['with a newline', 'abc\ndef'],
    ['non-ASCII', 'idé'],
    ['with a colon', 'a:b'],
    ['repeated (joined by node)', 'one, two'],
    ['an array', ['one', 'two']],
  ])('replaces a %s id with a fresh UUID', (_label, header) => {
    const id = requestIdFrom(header);
    expect(id).toMatch(UUID);
    expect(requestIdFrom(header)).not.toBe(id);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeFollowPosition, encodeFollowPosition } from './follow.js';

describe('follow list positions', () => {
  it('round-trip microsecond dates and bigint ids', () => {
    const position = { dateMicros: '1795286400123456', id: '9223372036854775807' };
    const encoded = encodeFollowPosition(position);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeFollowPosition(encoded)).toEqual(position);
  });

  it('reject anything else', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    for (const value of ['', '!!!', b64('1:0'), b64('x:1'), b64('1:9223372036854775808'), b64('1:2:3'), b64(' 1:2'), 'a'.repeat(65)]) {
      expect(decodeFollowPosition(value), value).toBeUndefined();
    }
  });
});

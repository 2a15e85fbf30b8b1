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
    const b64 = (fields: unknown[]) => Buffer.from(JSON.stringify(fields)).toString('base64url');
    const malformed = [['follows', '1', '0'], ['follows', 'x', '1'], ['follows', '1', '9223372036854775808'], ['follows', '1', '2', '3'], ['follows', ' 1', '2'], ['follows', 1, '2'], ['shelves', '1', '2']];
    for (const value of ['', '!!!', 'a'.repeat(65), ...malformed.map(b64)]) {
      expect(decodeFollowPosition(value), value).toBeUndefined();
    }
  });
});

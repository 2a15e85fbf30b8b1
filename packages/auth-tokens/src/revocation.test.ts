import { describe, expect, it } from 'vitest';
import { decodeRevocationNotice, encodeRevocationNotice } from './revocation.js';
import { hashToken } from './tokens.js';

describe('revocation notices', () => {
  it('round-trip the hashes of revoked tokens', () => {
    const hashes = [hashToken('a'), hashToken('b')];
    const message = encodeRevocationNotice(hashes);
    expect(JSON.parse(message)).toEqual({ tokenHashes: hashes });
    expect(decodeRevocationNotice(message)).toEqual({ tokenHashes: hashes });
  });

  it('yields nothing for malformed messages instead of throwing', () => {
    for (const message of ['', 'not json', 'null', '42', '"x"', '{}', '{"tokenHashes":"abc"}']) {
      expect(decodeRevocationNotice(message)).toEqual({ tokenHashes: [] });
    }
  });

  it('skips entries that are not sha256 hex', () => {
    const good = hashToken('a');
    expect(decodeRevocationNotice(JSON.stringify({ tokenHashes: [good, 'iwk_at_plaintext', 7, good.toUpperCase()] }))).toEqual({ tokenHashes: [good] });
  });
});

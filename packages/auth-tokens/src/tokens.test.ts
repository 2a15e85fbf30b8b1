import { describe, expect, it } from 'vitest';
import { generateToken, hashToken } from './tokens.js';

describe('generateToken', () => {
  it('prefixes each kind and carries 32 random bytes in base64url', () => {
    const token = generateToken('accessToken');
    expect(token).toMatch(/^iwk_at_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice('iwk_at_'.length), 'base64url')).toHaveLength(32);
    expect(generateToken('refreshToken')).toMatch(/^iwk_rt_/);
    expect(generateToken('personalToken')).toMatch(/^iwk_pat_/);
  });

  it('never repeats', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateToken('personalToken')));
    expect(tokens.size).toBe(1000);
  });
});

describe('hashToken', () => {
  it('is sha256 in lower-case hex, stable for the same token', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const token = generateToken('accessToken');
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toBe(hashToken(`${token}x`));
  });
});

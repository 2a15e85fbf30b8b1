import { createHash, randomBytes } from 'node:crypto';

/**
 * The prefix of every kind of secret Inkwell hands out. Prefixed secrets are greppable: a leaked
 * token in a log or a repository is easy to find and to tell apart from other strings.
 */
export const TOKEN_PREFIXES = {
  accessToken: 'iwk_at_',
  refreshToken: 'iwk_rt_',
  personalToken: 'iwk_pat_',
  authorizationCode: 'iwk_ac_',
  clientSecret: 'iwk_cs_',
} as const;

/** One kind of secret, named by its key in {@link TOKEN_PREFIXES}. */
export type TokenKind = keyof typeof TOKEN_PREFIXES;

/**
 * A new secret of `kind`: its prefix followed by 32 random bytes in base64url (43 characters,
 * 256 bits of entropy), e.g. `iwk_at_3q2-…`.
 */
export function generateToken(kind: TokenKind): string {
  return TOKEN_PREFIXES[kind] + randomBytes(32).toString('base64url');
}

/**
 * The stored form of a high-entropy secret (token, code, client secret): sha256 as lower-case hex.
 * A fast hash is enough because the input is 256 random bits (nothing to brute-force); passwords
 * are the only secrets that need a slow KDF. Also the key of revocation notices and of the
 * gateway's token cache. Any string hashes, so an unknown or malformed token simply finds nothing.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

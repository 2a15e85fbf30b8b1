/**
 * The Redis pub/sub channel on which the users service announces revoked access tokens. Every
 * gateway subscribes and drops those tokens from its in-memory cache, so a revoked token stops
 * working everywhere within a second even though gateways resolve tokens without a network call.
 */
export const REVOCATION_CHANNEL = 'inkwell:tokens:revoked';

/** The message on {@link REVOCATION_CHANNEL}, JSON-encoded: `{ "tokenHashes": ["<sha256 hex>", …] }`. */
export interface RevocationNotice {
  /** hashToken() of each revoked access token. */
  tokenHashes: string[];
}

/** The JSON text published for `tokenHashes`. */
export function encodeRevocationNotice(tokenHashes: readonly string[]): string {
  return JSON.stringify({ tokenHashes: [...tokenHashes] } satisfies RevocationNotice);
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Parses a message received on {@link REVOCATION_CHANNEL}. Anything malformed yields no hashes
 * rather than an exception (a subscriber must not crash on a bad message); entries that are not
 * sha256 hex strings are skipped.
 */
export function decodeRevocationNotice(message: string): RevocationNotice {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return { tokenHashes: [] };
  }
  const hashes = (parsed as { tokenHashes?: unknown } | null)?.tokenHashes;
  if (!Array.isArray(hashes)) return { tokenHashes: [] };
  return { tokenHashes: hashes.filter((hash): hash is string => typeof hash === 'string' && SHA256_HEX.test(hash)) };
}

/** Longest bearer value the gateway looks up; our tokens are far shorter. */
export const MAX_BEARER_LENGTH = 256;

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1): the scheme is matched
 * case-insensitively, exactly one space follows it, and the value must be a `token68` of at most
 * MAX_BEARER_LENGTH characters. Anything else (another scheme, an empty or oversized value,
 * spaces or commas inside, a repeated header) yields `undefined`: a bad token, never "no
 * credentials" (docs/api/auth.md, "The token check on API requests").
 */
export function bearerToken(header: string): string | undefined {
  const length = header.length;
  if (length < 8 || length > 7 + MAX_BEARER_LENGTH) return undefined;
  // "Bearer " compared without allocating a lower-cased copy.
  if ((header.charCodeAt(0) | 0x20) !== 98 /* b */ || header.charCodeAt(6) !== 32) return undefined;
  if (header.slice(1, 6).toLowerCase() !== 'earer') return undefined;
  let end = length;
  while (end > 8 && header.charCodeAt(end - 1) === 61 /* = */) end--;
  for (let i = 7; i < end; i++) {
    if (!TOKEN68[header.charCodeAt(i)]) return undefined;
  }
  return header.slice(7);
}

/** The characters of RFC 7235 token68 before its trailing `=` padding: ALPHA DIGIT - . _ ~ + / */
const TOKEN68: readonly boolean[] = (() => {
  const table = new Array<boolean>(128).fill(false);
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/') table[c.charCodeAt(0)] = true;
  return table;
})();

/** Longest accepted password: scrypt's cost does not depend on it, but absurd inputs are refused. */
const MAX_PASSWORD_LENGTH = 1024;

/** Shortest accepted password. */
export const MIN_PASSWORD_LENGTH = 10;

/** Longest bio: the limit for free text (docs/api/accounts.md, "Profiles") (1 MiB, counted in UTF-8 bytes). */
export const MAX_BIO_BYTES = 1024 * 1024;

const NAME = /^[\p{L}\p{N}_.-]{1,64}$/u;
// Deliberately loose: one @, something before it, a dot in the domain, no spaces. Only a
// confirmation mail proves an address; the pattern only catches obvious typos.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/u;

/** The canonical form of a user name: Unicode NFC, so that `ë` typed two ways is one name. */
export function normalizeName(name: string): string {
  return name.normalize('NFC');
}

/** The canonical form of an e-mail address: trimmed (case is kept; uniqueness ignores it). */
export function normalizeEmail(email: string): string {
  return email.trim();
}

/**
 * Why `name` (already normalised) is not a valid user name, or undefined when it is: 1–64
 * characters, each a letter or digit of any script, `_`, `-` or `.`.
 */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'A name is required.';
  if ([...name].length > 64) return 'A name has at most 64 characters.';
  if (!NAME.test(name)) return 'A name may contain only letters, digits, "_", "-" and ".".';
  return undefined;
}

/** Why `email` (already normalised) is not a plausible e-mail address, or undefined when it is. */
export function emailProblem(email: string): string | undefined {
  if (email.length === 0) return 'An e-mail address is required.';
  if (email.length > 254) return 'An e-mail address has at most 254 characters.';
  if (!EMAIL.test(email)) return 'This is not a valid e-mail address.';
  return undefined;
}

/** Why `password` is not acceptable, or undefined when it is (10 to 1024 characters). */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `A password has at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `A password has at most ${MAX_PASSWORD_LENGTH} characters.`;
  return undefined;
}

/** Why `bio` is not acceptable, or undefined when it is (at most 1 MiB of UTF-8). */
export function bioProblem(bio: string): string | undefined {
  return Buffer.byteLength(bio, 'utf8') > MAX_BIO_BYTES ? 'A bio is at most 1 MiB long.' : undefined;
}

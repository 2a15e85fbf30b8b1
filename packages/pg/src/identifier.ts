const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Throws unless `name` is a plain lower-case Postgres identifier (letters, digits, underscores,
 * at most 63 bytes, not starting with a digit). Schema names are interpolated into SQL and into
 * the `search_path` startup option, so anything that would need quoting is refused outright.
 */
export function assertIdentifier(name: string, what = 'identifier'): string {
  if (!IDENTIFIER.test(name)) {
    throw new TypeError(`Invalid ${what} ${JSON.stringify(name)}: use lower-case letters, digits and underscores (max 63).`);
  }
  return name;
}

/** Double-quotes an identifier that already passed `assertIdentifier`, for use in SQL text. */
export function quoteIdentifier(name: string): string {
  return `"${assertIdentifier(name)}"`;
}

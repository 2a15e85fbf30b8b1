/** One field of a keyset position: a sort value (as text or a number), an id, or null for a sort without a value. */
export type CursorField = string | number | null;

/** Longest `after` string accepted: positions are a few short fields, so anything longer is not one of ours. */
const MAX_CURSOR_LENGTH = 2_048;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Encodes where the next page of a keyset-paginated list starts as an opaque, URL-safe string
 * (base64url of a JSON array). `list` names the list and its order (e.g. `shelves`,
 * `rating.desc`) so a position made for one list or order is refused by another. The gateway
 * keeps it behind its own page token (docs/api/foundation.md); clients never see it.
 */
export function encodeCursor(list: string, fields: readonly CursorField[]): string {
  return Buffer.from(JSON.stringify([list, ...fields]), 'utf8').toString('base64url');
}

/**
 * Decodes a string made by {@link encodeCursor} for the same `list` with `arity` fields; undefined
 * for anything else (not base64url, too long, not JSON, another list, another number of fields,
 * a field that is not text, a finite number or null). The caller still checks each field's format.
 */
export function decodeCursor(list: string, text: string, arity: number): CursorField[] | undefined {
  if (text.length > MAX_CURSOR_LENGTH || !BASE64URL.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== arity + 1 || parsed[0] !== list) return undefined;
  const fields = parsed.slice(1) as unknown[];
  return fields.every(isField) ? fields : undefined;
}

function isField(value: unknown): value is CursorField {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

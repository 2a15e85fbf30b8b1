/** A parsed `Content-Type`: lower-cased `type/subtype` and lower-cased parameter names. */
export interface MediaType {
  readonly essence: string;
  readonly parameters: ReadonlyMap<string, string>;
}

/**
 * Parses a Content-Type header value (RFC 9110 §8.3.1). Returns undefined for a missing or
 * malformed value. Parameter values may be quoted; a malformed parameter makes the whole value
 * malformed, so that nothing half-understood is accepted.
 */
export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (header === undefined) return undefined;
  const parts = header.split(';');
  const essence = (parts[0] ?? '').trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(essence)) return undefined;
  const parameters = new Map<string, string>();
  for (let i = 1; i < parts.length; i++) {
    const part = (parts[i] ?? '').trim();
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const name = part.slice(0, eq).trim().toLowerCase();
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    parameters.set(name, value);
  }
  return { essence, parameters };
}

/**
 * Whether a request body of this Content-Type is accepted (docs/api/foundation.md):
 * `application/json` with any parameters except a charset other than UTF-8 (JSON is UTF-8,
 * RFC 8259), or `application/vnd.api+json` with no parameter but `profile` (allowed and
 * ignored): JSON:API 1.1 makes any other media type parameter a 415, and `ext` too, since we
 * support no extensions.
 */
export function isAcceptedRequestMediaType(header: string | undefined): boolean {
  const mediaType = parseMediaType(header);
  if (mediaType === undefined) return false;
  const { essence, parameters } = mediaType;
  if (essence !== 'application/vnd.api+json' && essence !== 'application/json') return false;
  if (essence === 'application/vnd.api+json') return [...parameters.keys()].every((name) => name === 'profile');
  const charset = parameters.get('charset');
  return charset === undefined || charset.toLowerCase() === 'utf-8';
}

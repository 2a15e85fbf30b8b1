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
 * Whether a request body of this Content-Type is accepted (contract §1, §10):
 * `application/vnd.api+json` or `application/json`, with any parameters except a charset other
 * than UTF-8 (JSON is UTF-8, RFC 8259) and, on the JSON:API type, the `ext` parameter (JSON:API
 * 1.1: we support no extensions, so a request asking for one is 415). `profile` is allowed and
 * ignored, as JSON:API permits.
 */
export function isAcceptedRequestMediaType(header: string | undefined): boolean {
  const mediaType = parseMediaType(header);
  if (mediaType === undefined) return false;
  const { essence, parameters } = mediaType;
  if (essence !== 'application/vnd.api+json' && essence !== 'application/json') return false;
  const charset = parameters.get('charset');
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') return false;
  if (essence === 'application/vnd.api+json' && parameters.has('ext')) return false;
  return true;
}

import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JSON_API_MEDIA_TYPE, type JsonApiDocument } from '../jsonapi/document.builder.js';

/** A strong validator of a response body: a quoted base64url SHA-1 of its bytes. */
export function strongEtag(body: Uint8Array): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/**
 * Whether `If-None-Match` (RFC 9110 §13.1.2: `*` or a list of entity tags, compared weakly)
 * matches `etag`.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return (tag.startsWith('W/') ? tag.slice(2) : tag) === etag;
  });
}

/**
 * Answers a 200 to a GET with its `ETag` (docs/api/foundation.md, "Caching at the edge"): 304 Not
 * Modified without a body when `If-None-Match` names the body's validator, else the document.
 * Does nothing when the response is already sent or the client is gone.
 */
export function sendValidatedJsonApi(req: IncomingMessage, res: ServerResponse, document: JsonApiDocument, headers?: Readonly<Record<string, string>>): void {
  if (res.headersSent || res.destroyed) return;
  if (headers !== undefined) {
    for (const name in headers) res.setHeader(name, headers[name] as string);
  }
  // Encoded once: the digest, the length and the socket all take the same bytes.
  const body = Buffer.from(JSON.stringify(document));
  const etag = strongEtag(body);
  res.setHeader('ETag', etag);
  if (etagMatches(req.headers['if-none-match'], etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', JSON_API_MEDIA_TYPE);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

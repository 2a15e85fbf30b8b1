import type { ServerResponse } from 'node:http';

/**
 * Sends a JSON answer of an OAuth endpoint (token, revoke, introspect): `Cache-Control: no-store`
 * and `Pragma: no-cache` (RFC 6749 §5.1: answers carry tokens), `application/json`.
 */
export function sendOAuthJson(res: ServerResponse, status: number, body: Readonly<Record<string, unknown>> | undefined, headers?: Readonly<Record<string, string>>): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  if (body === undefined) {
    res.setHeader('Content-Length', 0);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** An OAuth error answer (RFC 6749 §5.2): `{ error, error_description }`. */
export class OAuthFailure extends Error {
  override readonly name = 'OAuthFailure';
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

/** The Basic challenge sent with 401 invalid_client (RFC 6749 §5.2). */
export const CLIENT_CHALLENGE = 'Basic realm="inkwell"';

/** Sends an OAuthFailure; a 401 carries the Basic challenge for client authentication. */
export function sendOAuthFailure(res: ServerResponse, failure: OAuthFailure): void {
  sendOAuthJson(res, failure.status, { error: failure.error, error_description: failure.description }, failure.status === 401 ? { 'WWW-Authenticate': CLIENT_CHALLENGE } : undefined);
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { FormBodyError, readFormBody } from '../pages/form-body.reader.js';

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

/**
 * Reads the form body of an OAuth endpoint request. A body over the form limit is 413
 * `invalid_request`; any other unreadable body (not a form, not UTF-8) is 400 `invalid_request`
 * (RFC 6749 §5.2).
 */
export async function readOAuthForm(req: IncomingMessage): Promise<URLSearchParams> {
  try {
    return await readFormBody(req);
  } catch (error) {
    if (error instanceof FormBodyError) throw new OAuthFailure(error.status === 413 ? 413 : 400, 'invalid_request', error.message);
    throw error;
  }
}

import type { ServerResponse } from 'node:http';
import type { Logger } from '@inkwell/logging';
import { JSON_API_MEDIA_TYPE, type JsonApiDocument } from '../jsonapi/document.builder.js';
import { toErrorResponse } from '../jsonapi/error.mapping.js';
import type { GatewayRequest } from './request-state.js';

/** The realm of every Bearer challenge (contract §5). */
export const BEARER_REALM = 'Bearer realm="inkwell"';

/**
 * Writes a JSON:API response: status, `Content-Type: application/vnd.api+json`, extra headers,
 * and the document (no body when `document` is undefined, e.g. 204). Does nothing when the
 * response is already sent or the client is gone.
 */
export function sendJsonApi(res: ServerResponse, status: number, document: JsonApiDocument | undefined, headers?: Readonly<Record<string, string>>): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = status;
  if (headers !== undefined) {
    for (const name in headers) res.setHeader(name, headers[name] as string);
  }
  if (document === undefined) {
    res.end();
    return;
  }
  const body = JSON.stringify(document);
  res.setHeader('Content-Type', JSON_API_MEDIA_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * Answers `error` as a JSON:API error document through the one error table (toErrorResponse).
 * Server failures are logged with the request id (never sent). A 401 carries the Bearer
 * challenge: with `error="invalid_token"` when the request presented an Authorization header
 * of any kind (contract §10), without it when there were no credentials at all (RFC 6750 §3.1).
 * When the request body was not read to its end, the connection is closed after the answer so
 * that the unread bytes are not taken for the next request.
 */
export function sendApiError(req: GatewayRequest, res: ServerResponse, error: unknown, logger: Logger, headers?: Readonly<Record<string, string>>): void {
  const response = toErrorResponse(error);
  if (response.log !== undefined) {
    logger[response.log]({ err: error, requestId: req.inkwell?.requestId, route: req.inkwell?.route }, 'request failed');
  }
  if (res.headersSent || res.destroyed) return;
  if (response.status === 401) {
    res.setHeader('WWW-Authenticate', req.headers.authorization === undefined ? BEARER_REALM : `${BEARER_REALM}, error="invalid_token"`);
  }
  if (!req.complete) res.setHeader('Connection', 'close');
  sendJsonApi(res, response.status, response.document, headers);
}

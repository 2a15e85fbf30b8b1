import type { IncomingMessage } from 'node:http';
import { AppError, ErrorCode } from '@inkwell/errors';
import { isAcceptedRequestMediaType } from '../jsonapi/media-type.js';
import { collectBody, discardBody, hasBody } from './request-body.js';

/** Largest request body the API reads (docs/api/foundation.md, "Transport and routing": 2 MiB). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * Reads and parses the JSON body of a request, in this order of checks:
 * no body → undefined; a Content-Type other than JSON:API or JSON (see
 * isAcceptedRequestMediaType) → 415 `unsupported_media_type`; a declared or actual size over
 * `limitBytes` → 413 `payload_too_large` (decided from Content-Length before reading when
 * possible); bytes that are not UTF-8 JSON → 400 `invalid_body`. An empty chunked body is no
 * body. On a 413 or 415 the rest of the body is read and thrown away within REFUSED_BODY_DRAIN
 * before the error is thrown; past that bound it is left unread (answer with `Connection: close`).
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number = MAX_BODY_BYTES): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!isAcceptedRequestMediaType(req.headers['content-type'])) {
    await discardBody(req);
    throw clientError('unsupported_media_type', 'Request bodies must be application/vnd.api+json or application/json (UTF-8).');
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limitBytes) {
    await discardBody(req);
    throw tooLarge(limitBytes);
  }

  const bytes = await collectBody(req, limitBytes, () => tooLarge(limitBytes));
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw clientError('invalid_body', 'The request body is not valid JSON.');
  }
}

function tooLarge(limitBytes: number): AppError {
  return clientError('payload_too_large', `Request bodies are limited to ${limitBytes} bytes.`);
}

function clientError(reason: string, message: string): AppError {
  return new AppError(ErrorCode.INVALID_ARGUMENT, message, { details: [{ reason, detail: message }] });
}

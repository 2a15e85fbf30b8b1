import type { IncomingMessage } from 'node:http';
import { AppError, ErrorCode } from '@inkwell/errors';
import { isAcceptedRequestMediaType } from '../jsonapi/media-type.js';

/** Largest request body the API reads (docs/api/foundation.md, "Transport and routing": 2 MiB). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Whether the request carries a body at all (RFC 9112 §6.3: Transfer-Encoding or a non-zero Content-Length). */
export function hasBody(req: IncomingMessage): boolean {
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Reads and parses the JSON body of a request, in this order of checks:
 * no body → undefined; a Content-Type other than JSON:API or JSON (see
 * isAcceptedRequestMediaType) → 415 `unsupported_media_type`; a declared or actual size over
 * `limitBytes` → 413 `payload_too_large` (decided from Content-Length before reading when
 * possible); bytes that are not UTF-8 JSON → 400 `invalid_body`. An empty chunked body is no
 * body. On a 413 or 415 the body is left unread: answer with `Connection: close`.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number = MAX_BODY_BYTES): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!isAcceptedRequestMediaType(req.headers['content-type'])) {
    throw clientError('unsupported_media_type', 'Request bodies must be application/vnd.api+json or application/json (UTF-8).');
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limitBytes) throw tooLarge(limitBytes);

  const { chunks, total } = await collect(req, limitBytes);
  if (total === 0) return undefined;
  const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, total).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw clientError('invalid_body', 'The request body is not valid JSON.');
  }
}

/**
 * Collects the body without ever destroying the request (an async iterator would, on an early
 * exit, and take the socket with it before the 413 could be sent): on overflow it stops
 * listening and pauses the stream.
 */
function collect(req: IncomingMessage, limitBytes: number): Promise<{ chunks: Buffer[]; total: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limitBytes) {
        cleanup();
        req.pause();
        reject(tooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ chunks, total });
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onAborted = (): void => onError(new Error('the client aborted the request body'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

function tooLarge(limitBytes: number): AppError {
  return clientError('payload_too_large', `Request bodies are limited to ${limitBytes} bytes.`);
}

function clientError(reason: string, message: string): AppError {
  return new AppError(ErrorCode.INVALID_ARGUMENT, message, { details: [{ reason, detail: message }] });
}

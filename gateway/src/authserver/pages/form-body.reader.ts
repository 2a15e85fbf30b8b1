import type { IncomingMessage } from 'node:http';
import { collectBody, discardBody, hasBody } from '../../http/request-body.js';

/** Largest form body the pages and OAuth endpoints read. */
export const MAX_FORM_BYTES = 16 * 1024;

/** Why a form body could not be read. */
export class FormBodyError extends Error {
  override readonly name = 'FormBodyError';
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads an `application/x-www-form-urlencoded` body (HTML forms, RFC 6749 token requests) of at
 * most `limitBytes`. Another content type is a FormBodyError 415, a larger body 413 (decided
 * from Content-Length before reading when possible), bytes that are not UTF-8 400. No body is an
 * empty form. A refused body is discarded within REFUSED_BODY_DRAIN, never destroyed; past that
 * bound answer with `Connection: close`.
 */
export async function readFormBody(req: IncomingMessage, limitBytes: number = MAX_FORM_BYTES): Promise<URLSearchParams> {
  if (!hasBody(req)) return new URLSearchParams();
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    await discardBody(req);
    throw new FormBodyError(415, 'The body must be application/x-www-form-urlencoded.');
  }
  const tooLarge = () => new FormBodyError(413, `Form bodies are limited to ${limitBytes} bytes.`);
  if (Number(req.headers['content-length'] ?? 0) > limitBytes) {
    await discardBody(req);
    throw tooLarge();
  }
  const bytes = await collectBody(req, limitBytes, tooLarge);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new FormBodyError(400, 'The form body is not UTF-8.');
  }
  return new URLSearchParams(text);
}

/** The names that occur more than once in `fields` among `names` (RFC 6749 §3.1: parameters must not repeat). */
export function repeatedParameters(fields: URLSearchParams, names: readonly string[]): string[] {
  return names.filter((name) => fields.getAll(name).length > 1);
}

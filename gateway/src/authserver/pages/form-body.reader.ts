import type { IncomingMessage } from 'node:http';

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
 * empty form. The body stream is paused, never destroyed, on overflow: answer with
 * `Connection: close`.
 */
export async function readFormBody(req: IncomingMessage, limitBytes: number = MAX_FORM_BYTES): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody) return new URLSearchParams();
  if (type !== 'application/x-www-form-urlencoded') throw new FormBodyError(415, 'The body must be application/x-www-form-urlencoded.');
  if (Number(length ?? 0) > limitBytes) throw new FormBodyError(413, `Form bodies are limited to ${limitBytes} bytes.`);
  const bytes = await collect(req, limitBytes);
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

function collect(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limitBytes) {
        cleanup();
        req.pause();
        reject(new FormBodyError(413, `Form bodies are limited to ${limitBytes} bytes.`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks, total));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

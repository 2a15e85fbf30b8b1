import type { IncomingMessage } from 'node:http';

/**
 * How much of a refused body (413, 415) the gateway still reads and throws away before it
 * answers, and for how long (docs/api/foundation.md, "Transport and routing"). A client that
 * writes its whole body before reading the answer then sees the 413 instead of a reset
 * connection; a larger or slower body is cut off and the answer carries `Connection: close`.
 */
export const REFUSED_BODY_DRAIN = { maxBytes: 8 * 1024 * 1024, maxMilliseconds: 5_000 } as const;

/** Whether the request carries a body at all (RFC 9112 §6.3: Transfer-Encoding or a non-zero Content-Length). */
export function hasBody(req: IncomingMessage): boolean {
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Collects a request body of at most `limitBytes`, rejecting with `tooLarge()` beyond it (and
 * with the stream's error, or an abort, otherwise). Never destroys the request (an async
 * iterator would, on an early exit, and take the socket with it before the 413 could be sent):
 * on overflow it discards the rest within REFUSED_BODY_DRAIN (see discardBody) before it rejects.
 */
export function collectBody(req: IncomingMessage, limitBytes: number, tooLarge: () => Error): Promise<Buffer> {
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
        void discardBody(req).then(() => reject(tooLarge()));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
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

/**
 * Reads and discards the rest of a refused body, within REFUSED_BODY_DRAIN. Resolves once the
 * body has ended (the connection stays usable) or when the byte or time bound is reached, the
 * stream errors or the client aborts (the stream is then paused, never destroyed: answer with
 * `Connection: close`, which `req.complete === false` signals). Never rejects.
 */
export function discardBody(req: IncomingMessage, bounds: { maxBytes: number; maxMilliseconds: number } = REFUSED_BODY_DRAIN): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let total = 0;
    const stop = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', stop);
      req.off('error', stop);
      req.off('aborted', stop);
      req.off('close', stop);
      if (!req.complete) req.pause();
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > bounds.maxBytes) stop();
    };
    const timer = setTimeout(stop, bounds.maxMilliseconds);
    req.on('data', onData);
    req.on('end', stop);
    req.on('error', stop);
    req.on('aborted', stop);
    req.on('close', stop);
    req.resume();
  });
}

import type { IncomingMessage } from 'node:http';

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
 * on overflow it stops listening and pauses the stream, so answer with `Connection: close`.
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
        req.pause();
        reject(tooLarge());
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

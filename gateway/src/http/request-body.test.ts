import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { collectBody, hasBody } from './request-body.js';

const withHeaders = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const tooLarge = () => new Error('too large');

/** A request body stream that sends `chunks` and ends. */
function body(...chunks: string[]): IncomingMessage {
  const stream = new PassThrough();
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  return stream as unknown as IncomingMessage;
}

describe('hasBody', () => {
  it('sees a body in Transfer-Encoding or a non-zero Content-Length only', () => {
    expect(hasBody(withHeaders({ 'transfer-encoding': 'chunked' }))).toBe(true);
    expect(hasBody(withHeaders({ 'content-length': '3' }))).toBe(true);
    expect(hasBody(withHeaders({ 'content-length': '0' }))).toBe(false);
    expect(hasBody(withHeaders({}))).toBe(false);
  });
});

describe('collectBody', () => {
  it('gives back every byte sent, up to the limit', async () => {
    expect((await collectBody(body('ab', 'cd'), 4, tooLarge)).toString()).toBe('abcd');
    expect((await collectBody(body(), 4, tooLarge)).length).toBe(0);
  });

  it('refuses a body over the limit with the caller\'s error, pausing the stream instead of destroying it', async () => {
    const req = new PassThrough();
    const collected = collectBody(req as unknown as IncomingMessage, 4, tooLarge);
    req.write('abc');
    req.write('de');
    await expect(collected).rejects.toThrow('too large');
    expect(req.destroyed).toBe(false);
    expect(req.isPaused()).toBe(true);
  });

  it('fails when the client aborts the body', async () => {
    const req = new PassThrough();
    const collected = collectBody(req as unknown as IncomingMessage, 4, tooLarge);
    req.emit('aborted');
    await expect(collected).rejects.toThrow('aborted');
  });
});

import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { collectBody, discardBody, hasBody } from './request-body.js';

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

  it('refuses a body over the limit with the caller\'s error once the rest is read', async () => {
    const req = new PassThrough();
    const collected = collectBody(req as unknown as IncomingMessage, 4, tooLarge);
    req.write('abc');
    req.write('de');
    req.end('fgh');
    await expect(collected).rejects.toThrow('too large');
    expect(req.readableEnded).toBe(true);
  });

  it('fails when the client aborts the body', async () => {
    const req = new PassThrough();
    const collected = collectBody(req as unknown as IncomingMessage, 4, tooLarge);
    req.emit('aborted');
    await expect(collected).rejects.toThrow('aborted');
  });
});

describe('discardBody', () => {
  it('reads a refused body to its end', async () => {
    const req = body('abc', 'def');
    await discardBody(req, { maxBytes: 100, maxMilliseconds: 60_000 });
    expect(req.readableEnded).toBe(true);
  });

  it('stops reading, paused but not destroyed, past its byte bound', async () => {
    const req = new PassThrough();
    const discarded = discardBody(req as unknown as IncomingMessage, { maxBytes: 4, maxMilliseconds: 60_000 });
    req.write('abc');
    req.write('def');
    await discarded;
    expect(req.isPaused()).toBe(true);
    expect(req.readableEnded).toBe(false);
    expect(req.destroyed).toBe(false);
  });

  it('stops waiting for a body that does not come within its time bound', async () => {
    const req = new PassThrough();
    await discardBody(req as unknown as IncomingMessage, { maxBytes: 100, maxMilliseconds: 10 });
    expect(req.isPaused()).toBe(true);
    expect(req.destroyed).toBe(false);
  });
});

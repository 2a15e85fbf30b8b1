import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { JSON_API_MEDIA_TYPE, type JsonApiDocument } from '../jsonapi/document.builder.js';
import { etagMatches, sendValidatedJsonApi, strongEtag } from './etag.js';

describe('etag', () => {
  const etag = strongEtag(Buffer.from('{"data":null}'));

  it('is a quoted digest that changes with the body', () => {
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(strongEtag(Buffer.from('{"data":[]}'))).not.toBe(etag);
  });

  it('matches If-None-Match lists, weak tags and *, and nothing else', () => {
    expect(etagMatches(etag, etag)).toBe(true);
    expect(etagMatches(`"x", ${etag}`, etag)).toBe(true);
    expect(etagMatches(`W/${etag}`, etag)).toBe(true);
    expect(etagMatches('*', etag)).toBe(true);
    expect(etagMatches('"x"', etag)).toBe(false);
    expect(etagMatches(undefined, etag)).toBe(false);
  });
});

describe('sendValidatedJsonApi', () => {
  // A title outside ASCII: its bytes, not its characters, are what Content-Length and the ETag count.
  const document = { data: { type: 'story', id: '1', attributes: { title: 'Cœur — 心' } } } as unknown as JsonApiDocument;

  async function serve(ifNoneMatch?: string): Promise<{ status: number; headers: Headers; body: string }> {
    const server = createServer((req, res) => sendValidatedJsonApi(req, res, document, { 'Cache-Control': 'no-store' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/`, { headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch } });
      return { status: response.status, headers: response.headers, body: await response.text() };
    } finally {
      server.close();
    }
  }

  it('sends the document with its byte length, the digest of those bytes and the given headers', async () => {
    const answer = await serve();
    const bytes = Buffer.from(JSON.stringify(document));
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(JSON.stringify(document));
    expect(answer.headers.get('content-length')).toBe(String(bytes.length));
    expect(answer.headers.get('etag')).toBe(strongEtag(bytes));
    expect(answer.headers.get('content-type')).toBe(JSON_API_MEDIA_TYPE);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 304 without a body when If-None-Match names that digest', async () => {
    const first = await serve();
    const again = await serve(first.headers.get('etag')!);
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  });
});

import { describe, expect, it } from 'vitest';
import { etagMatches, strongEtag } from './etag.js';

describe('etag', () => {
  const etag = strongEtag('{"data":null}');

  it('is a quoted digest that changes with the body', () => {
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(strongEtag('{"data":[]}')).not.toBe(etag);
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

import { parseAtomFeed } from 'feedsmith';
import { describe, expect, it } from 'vitest';
import { renderAtomFeed, xmlText, type AtomFeed } from './atom.writer.js';

const FEED: AtomFeed = {
  id: 'https://inkwell.test/feeds/stories/1.atom',
  title: 'Tom & <Jerry> "quoted"',
  subtitle: 'A story',
  updated: new Date('2026-03-01T10:00:00Z'),
  self: 'https://inkwell.test/feeds/stories/1.atom?a=1&b=2',
  alternate: 'https://inkwell.test/api/v1/stories/1',
  authors: [{ name: 'Ada', uri: 'https://inkwell.test/api/v1/users/1' }],
  entries: [
    {
      id: 'https://inkwell.test/api/v1/chapters/2',
      title: 'Chapter 2: ]]> <script>alert(1)</script>',
      updated: new Date('2026-03-01T10:00:00Z'),
      published: new Date('2026-02-01T10:00:00Z'),
      alternate: 'https://inkwell.test/api/v1/chapters/2',
      summary: 'Bell\u0007 and NUL\u0000 and a lone \ud800 surrogate, kept: \u00e9 \ud83d\ude00',
      categories: ['chapter'],
    },
  ],
};

describe('renderAtomFeed', () => {
  it('writes every element RFC 4287 requires, read back by a real parser', () => {
    const parsed = parseAtomFeed(renderAtomFeed(FEED));
    expect(parsed.id).toBe(FEED.id);
    expect(parsed.title).toEqual({ value: 'Tom & <Jerry> "quoted"', type: 'text' });
    expect(parsed.updated).toBe('2026-03-01T10:00:00.000Z');
    expect(parsed.authors).toEqual([{ name: 'Ada', uri: 'https://inkwell.test/api/v1/users/1' }]);
    expect(parsed.links).toContainEqual({ rel: 'self', href: FEED.self, type: 'application/atom+xml' });
    expect(parsed.links).toContainEqual(expect.objectContaining({ rel: 'alternate', href: FEED.alternate }));
    const [entry] = parsed.entries ?? [];
    expect(entry?.id).toBe('https://inkwell.test/api/v1/chapters/2');
    expect(entry?.title).toEqual({ value: 'Chapter 2: ]]> <script>alert(1)</script>', type: 'text' });
    expect(entry?.updated).toBe('2026-03-01T10:00:00.000Z');
    expect(entry?.published).toBe('2026-02-01T10:00:00.000Z');
    expect(entry?.links).toEqual([{ rel: 'alternate', href: 'https://inkwell.test/api/v1/chapters/2', type: 'application/vnd.api+json' }]);
  });

  it('leaves out the characters XML 1.0 cannot carry and keeps every other one', () => {
    const xml = renderAtomFeed(FEED);
    for (const unwanted of ['\u0000', '\u0007', 'lone \ud800']) expect(xml).not.toContain(unwanted);
    expect(parseAtomFeed(xml).entries?.[0]?.summary?.value).toBe('Bell and NUL and a lone  surrogate, kept: \u00e9 \ud83d\ude00');
  });

  it('never lets user text become markup', () => {
    const xml = renderAtomFeed(FEED);
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('<Jerry>');
    expect(xml).toContain('href="https://inkwell.test/feeds/stories/1.atom?a=1&amp;b=2"');
    expect(xmlText('a&b<c>d"e')).toBe('a&amp;b&lt;c&gt;d&quot;e');
  });

  it('gives the same bytes for the same feed, so their digest is a strong validator', () => {
    expect(renderAtomFeed({ ...FEED })).toBe(renderAtomFeed(FEED));
  });

  it('refuses a feed without an author when an entry has none either (RFC 4287 §4.1.1)', () => {
    expect(() => renderAtomFeed({ ...FEED, authors: [] })).toThrow(/needs an author/);
    expect(() => renderAtomFeed({ ...FEED, authors: [], entries: [] })).toThrow(/needs an author/);
    expect(() => renderAtomFeed({ ...FEED, authors: [], entries: FEED.entries.map((entry) => ({ ...entry, authors: [{ name: 'Bo' }] })) })).not.toThrow();
  });
});

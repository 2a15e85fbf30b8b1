import { describe, expect, it } from 'vitest';
import { MAX_CONTENT_BYTES, normaliseTag, validateChanges, validateNewPost, validateSitePostTag } from './blog-post-input.js';

const valid = { title: 'A title', content: 'Some *content*', tags: [], storyIds: [] };

describe('validateNewPost', () => {
  it('trims the title, normalises and deduplicates tags, deduplicates stories', () => {
    const result = validateNewPost({ title: '  Hello  ', content: 'Text', tags: [' Drabble', 'drabble ', 'Slice  of\tLife'], storyIds: ['3', '1', '3'] });
    expect(result).toEqual({ ok: true, value: { title: 'Hello', content: 'Text', tags: ['drabble', 'slice of life'], storyIds: ['3', '1'] } });
  });

  it('reports a blank title and blank content with their pointers', () => {
    const result = validateNewPost({ ...valid, title: '   ', content: ' \n ' });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.pointer)).toEqual(['/data/attributes/title', '/data/attributes/content']);
  });

  it('accepts a 200-character title and rejects 201 (counting characters, not UTF-16 units)', () => {
    expect(validateNewPost({ ...valid, title: '😀'.repeat(200) }).ok).toBe(true);
    expect(validateNewPost({ ...valid, title: 'x'.repeat(201) }).ok).toBe(false);
  });

  it('accepts content of exactly 1 MiB of UTF-8 and rejects one byte more', () => {
    expect(validateNewPost({ ...valid, content: 'x'.repeat(MAX_CONTENT_BYTES) }).ok).toBe(true);
    const over = validateNewPost({ ...valid, content: 'x'.repeat(MAX_CONTENT_BYTES - 1) + 'é' });
    expect(!over.ok && over.problems[0]?.pointer).toBe('/data/attributes/content');
  });

  it('rejects blank tags, tags with commas and tags over 50 characters, pointing at the element', () => {
    const result = validateNewPost({ ...valid, tags: ['ok', ' ', 'a,b', 'y'.repeat(51)] });
    expect(!result.ok && result.problems.map((p) => p.pointer)).toEqual(['/data/attributes/tags/1', '/data/attributes/tags/2', '/data/attributes/tags/3']);
  });

  it('allows 10 distinct tags and rejects 11', () => {
    const tags = Array.from({ length: 11 }, (_, i) => `t${i}`);
    expect(validateNewPost({ ...valid, tags: tags.slice(0, 10) }).ok).toBe(true);
    expect(validateNewPost({ ...valid, tags: [...tags.slice(0, 10), 'T0'] }).ok).toBe(true);
    expect(validateNewPost({ ...valid, tags }).ok).toBe(false);
  });

  it('allows 25 stories and rejects 26', () => {
    const ids = Array.from({ length: 26 }, (_, i) => String(i + 1));
    expect(validateNewPost({ ...valid, storyIds: ids.slice(0, 25) }).ok).toBe(true);
    const result = validateNewPost({ ...valid, storyIds: ids });
    expect(!result.ok && result.problems[0]?.pointer).toBe('/data/relationships/stories');
  });
});

describe('validateChanges', () => {
  it('validates only the fields that are set', () => {
    expect(validateChanges({})).toEqual({ ok: true, value: {} });
    expect(validateChanges({ tags: [] })).toEqual({ ok: true, value: { tags: [] } });
    const result = validateChanges({ title: '' });
    expect(!result.ok && result.problems[0]?.pointer).toBe('/data/attributes/title');
  });
});

describe('tags', () => {
  it('normalises case and whitespace', () => {
    expect(normaliseTag('  Big   NEWS ')).toBe('big news');
  });

  it('treats a blank site-post tag as none and normalises the rest', () => {
    expect(validateSitePostTag(undefined)).toEqual({ ok: true, value: undefined });
    expect(validateSitePostTag('  ')).toEqual({ ok: true, value: undefined });
    expect(validateSitePostTag(' Announcement ')).toEqual({ ok: true, value: 'announcement' });
    expect(validateSitePostTag('a,b').ok).toBe(false);
  });
});

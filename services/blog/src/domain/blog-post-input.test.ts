import { describe, expect, it } from 'vitest';
import { normaliseTag, validateChanges, validateNewPost, validateSitePostTag } from './blog-post-input.js';

const valid = { title: 'A title', content: 'Some *content*', tags: [], storyIds: [] };

describe('validateNewPost', () => {
  it('trims the title, normalises and deduplicates tags, deduplicates stories', () => {
    const result = validateNewPost({ title: '  Hello  ', content: 'Text', tags: [' Drabble', 'drabble ', 'Slice  of\tLife'], storyIds: ['3', '1', '3'] });
    expect(result).toEqual({ ok: true, value: { title: 'Hello', content: 'Text', tags: ['drabble', 'slice of life'], storyIds: ['3', '1'] } });
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

});

describe('validateChanges', () => {
  it('validates only the fields that are set', () => {
    expect(validateChanges({})).toEqual({ ok: true, value: {} });
    expect(validateChanges({ tags: [] })).toEqual({ ok: true, value: { tags: [] } });
    expect(validateChanges({ title: ' New ' })).toEqual({ ok: true, value: { title: 'New' } });
    const result = validateChanges({ tags: ['a,b'] });
    expect(!result.ok && result.problems[0]?.pointer).toBe('/data/attributes/tags/0');
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

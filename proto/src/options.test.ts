import { describe, expect, it } from 'vitest';
import { ruleBound, Scope, scopeName, search_text_max_len, TAG_ID_PATTERN, trimmed_max_len } from './options.js';
import { ListProbesRequestSchema, ProbeFilterSchema, SaveProbeRequestSchema } from './testing.js';

describe('scopeName', () => {
  it('is the value name without SCOPE_, in lower case', () => {
    expect(scopeName(Scope.WRITE_STORIES)).toBe('write_stories');
    expect(scopeName(Scope.READ_PMS)).toBe('read_pms');
  });
});

describe('ruleBound', () => {
  it('reads lengths, counts and range ends of a field’s rules as numbers', () => {
    expect(ruleBound(SaveProbeRequestSchema.field.title, 'minLen')).toBe(1);
    expect(ruleBound(SaveProbeRequestSchema.field.title, 'maxLen')).toBe(20);
    expect(ruleBound(SaveProbeRequestSchema.field.tagIds, 'maxItems')).toBe(3);
    expect(ruleBound(ListProbesRequestSchema.field.pageSize, 'gte')).toBe(0);
    expect(ruleBound(ListProbesRequestSchema.field.pageSize, 'lte')).toBe(100);
    expect(ruleBound(SaveProbeRequestSchema.field.storyId, 'gt')).toBe(0);
  });

  it('is undefined for a bound the rules do not set, or a field without rules', () => {
    expect(ruleBound(SaveProbeRequestSchema.field.title, 'maxBytes')).toBeUndefined();
    expect(ruleBound(ListProbesRequestSchema.field.pageSize, 'lt')).toBeUndefined();
    expect(ruleBound(ListProbesRequestSchema.field.filter, 'maxLen')).toBeUndefined();
    expect(ruleBound(ProbeFilterSchema.field.authorIds, 'maxLen', 'items')).toBeUndefined();
  });
});

describe('ruleBound of a predefined rule', () => {
  it('reads the number of our own string rules, undefined where they are not set', () => {
    expect(ruleBound(SaveProbeRequestSchema.field.note, trimmed_max_len)).toBe(10);
    expect(ruleBound(ListProbesRequestSchema.field.query, search_text_max_len)).toBe(10);
    expect(ruleBound(SaveProbeRequestSchema.field.title, trimmed_max_len)).toBeUndefined();
    expect(ruleBound(ListProbesRequestSchema.field.pageSize, trimmed_max_len)).toBeUndefined();
  });
});

describe('TAG_ID_PATTERN', () => {
  it('is the syntax of the tag_id rule: c:<n> or g:<n>, n of 1 to 9 digits without a leading zero', () => {
    for (const id of ['c:1', 'g:3', 'c:999999999']) expect(TAG_ID_PATTERN.test(id)).toBe(true);
    for (const id of ['x:1', 'c:0', 'c:01', 'c:1000000000', 'c:', 'C:1', ' c:1', 'c:1 ']) expect(TAG_ID_PATTERN.test(id)).toBe(false);
  });
});

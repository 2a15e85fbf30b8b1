import { ListProbesRequestSchema, ProbeFilterSchema, SaveProbeRequestSchema } from '@inkwell/proto/testing';
import { describe, expect, it } from 'vitest';
import {
  cursorPagination,
  DEFAULT_PAGE_SIZE,
  ID_PATTERN,
  integerRule,
  isId,
  maxChars,
  maxItems,
  numberedPagination,
  protoBound,
  protoPattern,
  unanchored,
} from './proto-rules.js';

// The rules of proto/inkwell/testing/v1/testing_service.proto, which exists for such tests.
const save = SaveProbeRequestSchema.field;
const list = ListProbesRequestSchema.field;

describe('proto rules', () => {
  it('reads lengths from max_len and from our trimmed and search-text rules', () => {
    expect(maxChars(save.title)).toBe(20);
    expect(maxChars(save.note)).toBe(10);
    expect(maxChars(list.query)).toBe(10);
    expect(() => maxChars(save.body)).toThrow(/inkwell\.testing\.v1\.SaveProbeRequest\.body has no buf\.validate bound on its length/);
  });

  it('reads counts, named bounds and item patterns', () => {
    expect(maxItems(save.tagIds)).toBe(3);
    expect(maxItems(ProbeFilterSchema.field.authorIds)).toBe(2);
    expect(protoBound(save.body, 'maxBytes')).toBe(2048);
    expect(protoPattern(save.tagIds, 'items').test('t:12')).toBe(true);
    expect(protoPattern(save.tagIds, 'items').test('t:1234567890')).toBe(false);
    expect(unanchored(protoPattern(save.tagIds, 'items'))).toBe('t:[1-9][0-9]{0,8}');
    expect(() => maxItems(ProbeFilterSchema.field.wordsMin)).toThrow(/has no buf\.validate maxItems rule/);
    expect(() => protoPattern(save.title)).toThrow(/has no buf\.validate string\.pattern/);
  });

  it('narrows an integer field to its rules within its type', () => {
    expect(integerRule(ProbeFilterSchema.field.wordsMin)).toEqual({ min: 0, max: 2_147_483_647 });
    expect(integerRule(list.pageSize)).toEqual({ min: 0, max: 100 });
    expect(() => integerRule(save.storyId)).toThrow(/not a 32-bit integer field/);
  });

  it('derives page sizes from page_size: 1 to its maximum, the default when left out', () => {
    expect(cursorPagination(list.pageSize)).toEqual({ kind: 'cursor', defaultSize: DEFAULT_PAGE_SIZE, maxSize: 100 });
    expect(numberedPagination(list.pageSize, 50)).toEqual({ kind: 'page', defaultSize: 50, maxSize: 100 });
    expect(() => cursorPagination(ProbeFilterSchema.field.wordsMax)).toThrow(/ProbeFilter\.words_max has no buf\.validate lte rule/);
  });

  it('describes ids as positive int64 values, the type and rule of id fields (int64.gt = 0)', () => {
    expect(protoBound(save.storyId, 'gt')).toBe(0);
    expect(ID_PATTERN.source).toBe('^[1-9][0-9]{0,18}$');
    expect(isId('9223372036854775807')).toBe(true);
    expect(isId('9223372036854775808')).toBe(false);
    expect(isId('01')).toBe(false);
  });
});

import { StoryFilterSchema } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { filters, type FilterKind } from './filter-kinds.js';

/** GET /stories's list filters, which take at most 100 values (docs/api/lists.md, "Filters"). */
const ids = filters.ids(StoryFilterSchema.field.ids);
const tags = filters.tags(StoryFilterSchema.field.tagIds);

function parse<T>(kind: FilterKind<T>, text: string): T {
  const result = kind.schema.safeParse(text);
  if (!result.success) throw new Error(result.error.issues[0]?.message);
  return result.data;
}

function rejects<T>(kind: FilterKind<T>, text: string): string {
  const result = kind.schema.safeParse(text);
  if (result.success) throw new Error(`accepted ${text}`);
  return result.error.issues[0]?.message ?? '';
}

describe('filters.id / ids', () => {
  it('accepts canonical positive int64 ids as strings', () => {
    expect(parse(filters.id(), '42')).toBe('42');
    expect(parse(filters.id(), '9223372036854775807')).toBe('9223372036854775807');
  });

  it.each(['', '0', '-1', '01', '1.5', 'abc', '9223372036854775808', ' 1'])('rejects the id %j', (text) => {
    expect(rejects(filters.id(), text)).toMatch(/numeric id/);
  });

  it('deduplicates id lists and sorts them numerically', () => {
    expect(parse(ids, '10,2,10,1')).toEqual(['1', '2', '10']);
  });

  it('rejects empty items, bad ids and overlong lists', () => {
    expect(rejects(ids, '1,,2')).toMatch(/empty items/);
    expect(rejects(ids, '1,x')).toMatch(/"x" is not a numeric id/);
    const many = Array.from({ length: 101 }, (_, i) => String(i + 1)).join(',');
    expect(rejects(ids, many)).toMatch(/at most 100/);
  });
});

describe('filters.integer / integerRange', () => {
  it('parses integers within bounds', () => {
    expect(parse(filters.integer({ min: 0 }), '0')).toBe(0);
    expect(parse(filters.integer(), '-7')).toBe(-7);
    expect(rejects(filters.integer({ min: 0 }), '-1')).toMatch(/at least 0/);
    expect(rejects(filters.integer({ max: 10 }), '11')).toMatch(/at most 10/);
    expect(rejects(filters.integer(), '1e3')).toMatch(/not an integer/);
    expect(rejects(filters.integer(), '007')).toMatch(/not an integer/);
  });

  it('parses ranges with either side open, and a single value as both bounds', () => {
    const range = filters.integerRange({ min: 0 });
    expect(parse(range, '100,5000')).toEqual({ min: 100, max: 5000 });
    expect(parse(range, '100,')).toEqual({ min: 100 });
    expect(parse(range, ',5000')).toEqual({ max: 5000 });
    expect(parse(range, '7')).toEqual({ min: 7, max: 7 });
    expect(parse(range, '5,5')).toEqual({ min: 5, max: 5 });
  });

  it('rejects min > max, no bound at all, three parts and malformed sides', () => {
    const range = filters.integerRange({ min: 0 });
    expect(rejects(range, '10,5')).toMatch(/minimum 10 is greater than the maximum 5/);
    expect(rejects(range, ',')).toMatch(/at least one bound/);
    expect(rejects(range, '')).toMatch(/at least one bound/);
    expect(rejects(range, '1,2,3')).toMatch(/min,max/);
    expect(rejects(range, 'a,5')).toMatch(/not an integer/);
    expect(rejects(range, '-1,5')).toMatch(/at least 0/);
  });

  it('normalises equal ranges alike', () => {
    const range = filters.integerRange();
    expect(range.normalise(parse(range, '5'))).toBe(range.normalise(parse(range, '5,5')));
    expect(range.normalise(parse(range, '5,'))).not.toBe(range.normalise(parse(range, ',5')));
  });
});

describe('filters.dateRange', () => {
  const range = filters.dateRange();
  const seconds = (iso: string): bigint => BigInt(Date.parse(iso) / 1000);

  it('covers whole days for dates and exact instants for date-times', () => {
    expect(parse(range, '2026-01-01,2026-01-31')).toEqual({
      min: { seconds: seconds('2026-01-01T00:00:00Z'), nanos: 0 },
      max: { seconds: seconds('2026-01-31T23:59:59Z'), nanos: 999_999_999 },
    });
    expect(parse(range, '2026-01-01T10:00:00Z,')).toEqual({ min: { seconds: seconds('2026-01-01T10:00:00Z'), nanos: 0 } });
    expect(parse(range, ',2026-01-01T10:00:00Z')).toEqual({ max: { seconds: seconds('2026-01-01T10:00:00Z'), nanos: 0 } });
  });

  it('takes a single date as that whole day', () => {
    expect(parse(range, '2026-03-04')).toEqual({
      min: { seconds: seconds('2026-03-04T00:00:00Z'), nanos: 0 },
      max: { seconds: seconds('2026-03-04T23:59:59Z'), nanos: 999_999_999 },
    });
  });

  it('accepts the same day as both bounds and rejects a minimum after the maximum', () => {
    expect(parse(range, '2026-03-04,2026-03-04').min).toBeDefined();
    expect(rejects(range, '2026-03-05,2026-03-04')).toMatch(/after the maximum/);
    expect(rejects(range, '2026-03-04T12:00:00Z,2026-03-04T11:59:59Z')).toMatch(/after the maximum/);
  });

  it('names the malformed side', () => {
    expect(rejects(range, '2026-02-30,')).toMatch(/"2026-02-30" is not an ISO 8601/);
    expect(rejects(range, '2026-01-01,tomorrow')).toMatch(/"tomorrow"/);
  });
});

describe('filters.boolean / enumeration / tags / string', () => {
  it('accepts true, false, 1 and 0 only', () => {
    expect(['true', '1', 'false', '0'].map((text) => parse(filters.boolean(), text))).toEqual([true, true, false, false]);
    for (const text of ['yes', 'TRUE', '', '2']) expect(rejects(filters.boolean(), text)).toMatch(/true, false, 1 or 0/);
  });

  it('accepts only the listed values of an enumeration', () => {
    const status = filters.enumeration(['complete', 'on-hiatus']);
    expect(parse(status, 'on-hiatus')).toBe('on-hiatus');
    expect(rejects(status, 'Complete')).toMatch(/one of complete, on-hiatus/);
  });

  it('splits required and excluded tags, each deduplicated and ordered, and binds cursors alike whatever the order sent', () => {
    const selection = filters.tagSelection(StoryFilterSchema.field.tagIds, StoryFilterSchema.field.excludedTagIds);
    expect(parse(selection, 'g:3,-c:12,c:2,-g:1,g:3,-c:12')).toEqual({ include: ['c:2', 'g:3'], exclude: ['c:12', 'g:1'] });
    expect(selection.normalise(parse(selection, '-g:1,g:3'))).toBe(selection.normalise(parse(selection, 'g:3,-g:1,-g:1')));
    expect(parse(selection, 'g:3,-g:3')).toEqual({ include: ['g:3'], exclude: ['g:3'] });
    for (const text of ['-', '--g:1', '-x:1', 'g:1,-', '- g:1', '-c:0', '']) expect(rejects(selection, text), text).toBeTruthy();
    expect(rejects(selection, Array.from({ length: 101 }, (_, i) => `${i % 2 === 0 ? '-' : ''}g:${i + 1}`).join(','))).toMatch(/at most 100/);
  });

  it('accepts character and genre tags, deduplicated and ordered', () => {
    expect(parse(tags, 'g:3,c:12,c:2,g:3')).toEqual(['c:2', 'c:12', 'g:3']);
    for (const text of ['x:1', 'c:', 'c:0', 'c:01', 'g:1,', 'c12']) expect(rejects(tags, text)).toBeTruthy();
  });

  it('keeps strings as sent but rejects blank and overlong ones', () => {
    expect(parse(filters.string(10), ' hi ')).toBe(' hi ');
    expect(rejects(filters.string(10), '   ')).toMatch(/empty/);
    expect(rejects(filters.string(3), 'four')).toMatch(/at most 3/);
    expect(parse(filters.string(3), '日本語')).toBe('日本語');
  });
});

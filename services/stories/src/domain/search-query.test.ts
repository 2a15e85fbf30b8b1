import { describe, expect, it } from 'vitest';
import { parseSearchQuery, positiveText } from './search-query.js';

const word = (text: string) => ({ kind: 'word', text });
const phrase = (text: string) => ({ kind: 'phrase', text });

describe('parseSearchQuery', () => {
  it('reads words as all required', () => {
    expect(parseSearchQuery('  dragon  heart ')).toEqual({ all: [[word('dragon')], [word('heart')]], none: [] });
  });

  it('reads quoted phrases, closing an unclosed quote at the end', () => {
    expect(parseSearchQuery('"the  old dragon" heart')).toEqual({ all: [[phrase('the old dragon')], [word('heart')]], none: [] });
    expect(parseSearchQuery('heart "old dragon')).toEqual({ all: [[word('heart')], [phrase('old dragon')]], none: [] });
    expect(parseSearchQuery('"" " "')).toEqual({ all: [], none: [] });
  });

  it('reads -word and -"phrase" as exclusions, and a lone dash as a word', () => {
    expect(parseSearchQuery('dragon -heart -"old town"')).toEqual({ all: [[word('dragon')]], none: [word('heart'), phrase('old town')] });
    expect(parseSearchQuery('dragon - heart')).toEqual({ all: [[word('dragon')], [word('-')], [word('heart')]], none: [] });
  });

  it('reads or (any case) as a choice between its neighbours', () => {
    expect(parseSearchQuery('dragon or wyvern OR "sea serpent" heart')).toEqual({
      all: [[word('dragon'), word('wyvern'), phrase('sea serpent')], [word('heart')]],
      none: [],
    });
  });

  it('ignores an or without a positive term on both sides', () => {
    expect(parseSearchQuery('or dragon or')).toEqual({ all: [[word('dragon')]], none: [] });
    expect(parseSearchQuery('-dragon or heart')).toEqual({ all: [[word('heart')]], none: [word('dragon')] });
    expect(parseSearchQuery('or or')).toEqual({ all: [], none: [] });
    expect(parseSearchQuery('"or" -or')).toEqual({ all: [[phrase('or')]], none: [word('or')] });
  });

  it('accepts any text without throwing', () => {
    const nasty = ['', '"', '-', '--', '-"', '""-""', '\u0000\u0001', 'a"b"c', '((()))', '*:*', 'title:x AND y', '\\', '\uD800', '🐉 or 🐲', ' \t\n ', 'a'.repeat(500), '-'.repeat(200)];
    for (const text of nasty) expect(() => parseSearchQuery(text)).not.toThrow();
  });
});

describe('positiveText', () => {
  it('joins the positive terms, and is empty with an or', () => {
    expect(positiveText(parseSearchQuery('The  Heart -dragon'))).toBe('The Heart');
    expect(positiveText(parseSearchQuery('"the heart"'))).toBe('the heart');
    expect(positiveText(parseSearchQuery('heart or soul'))).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import { countWords } from './chapter.js';

describe('countWords', () => {
  it('counts words, not Markdown punctuation', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('# A title\n\n*Once* upon a **time** - the end.')).toBe(8);
  });

  it('keeps contractions and hyphenated words whole, and counts non-Latin scripts', () => {
    expect(countWords("don't stop the well-known tune")).toBe(5);
    expect(countWords('Élise und Jürgen — 東京')).toBe(4);
  });
});

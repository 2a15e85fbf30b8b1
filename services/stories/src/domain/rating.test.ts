import { describe, expect, it } from 'vitest';
import { wilsonRating } from './rating.js';

describe('wilsonRating', () => {
  it('is null without votes', () => {
    expect(wilsonRating(0, 0)).toBeNull();
  });

  it('matches the Wilson lower bound for known values', () => {
    // 1 like of 1: lower bound 0.2065; 8 of 10: 0.4902; 90 of 100: 0.8283.
    expect(wilsonRating(1, 0)).toBe(21);
    expect(wilsonRating(8, 2)).toBe(49);
    expect(wilsonRating(90, 10)).toBe(83);
    expect(wilsonRating(0, 5)).toBe(0);
  });

  it('rewards certainty: more votes at the same share rate higher', () => {
    expect(wilsonRating(10, 0)!).toBeLessThan(wilsonRating(100, 0)!);
    expect(wilsonRating(100000, 0)).toBe(100);
  });
});

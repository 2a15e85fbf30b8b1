import { describe, expect, it } from 'vitest';
import { escapeHtml, prng, Zipf } from './index.js';

describe('prng', () => {
  it('gives the same sequence for the same seed and numbers in [0, 1)', () => {
    const a = prng(42);
    const b = prng(42);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
    expect(prng(43)()).not.toBe(prng(42)());
  });
});

describe('Zipf', () => {
  it('picks low indexes most often, and every index is possible', () => {
    const random = prng(7);
    const zipf = new Zipf(10, 1);
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 20_000; i++) counts[zipf.pick(random)]! += 1;
    expect(counts[0]!).toBeGreaterThan(counts[1]!);
    expect(counts[1]!).toBeGreaterThan(counts[9]!);
    expect(counts.every((count) => count > 0)).toBe(true);
    // P(0) = 1 / H(10) ≈ 0.341
    expect(counts[0]! / 20_000).toBeCloseTo(0.341, 1);
  });
});

describe('escapeHtml', () => {
  it('escapes markup characters', () => {
    expect(escapeHtml('a < b & c > d')).toBe('a &lt; b &amp; c &gt; d');
  });
});

/**
 * Building blocks of the data generators (stories, messages): deterministic randomness, so the
 * same seed always gives the same data, and skewed choices like real sites have (a few authors
 * write most stories, a few users get most messages).
 */

/** A small, fast, seedable PRNG (mulberry32): numbers in [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks indexes 0..n-1 with probability ∝ 1/(i+1)^s (s = 0 is uniform; larger is more skewed). */
export class Zipf {
  private readonly cdf: Float64Array;

  constructor(n: number, s: number) {
    this.cdf = new Float64Array(n);
    let sum = 0;
    for (let i = 0; i < n; i++) this.cdf[i] = sum += 1 / (i + 1) ** s;
    for (let i = 0; i < n; i++) this.cdf[i]! /= sum;
  }

  /** One index, by binary search of the cumulative distribution. */
  pick(random: () => number): number {
    const u = random();
    let low = 0;
    let high = this.cdf.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.cdf[mid]! < u) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/** Escapes text for HTML: generated plain text becomes its `_html` twin without a Markdown pass. */
export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

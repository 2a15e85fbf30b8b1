import { describe, expect, it } from 'vitest';
import { addHeat, HEAT_WEIGHTS, HOTNESS_HALF_LIFE_MS, hotnessFromTotals, publicationHeat } from './hotness.js';

const at = (iso: string) => new Date(iso);
const hours = (n: number) => n * 60 * 60 * 1000;

describe('hotness', () => {
  it('ranks a newer story above an older one with the same engagement', () => {
    const older = publicationHeat(at('2026-01-01T00:00:00Z'));
    const newer = publicationHeat(at('2026-01-02T00:00:00Z'));
    expect(newer).toBeGreaterThan(older);
  });

  it('rises with every event, more for likes than for views', () => {
    const base = publicationHeat(at('2026-01-01T00:00:00Z'));
    const viewed = addHeat(base, HEAT_WEIGHTS.view, at('2026-01-01T01:00:00Z'));
    const liked = addHeat(base, HEAT_WEIGHTS.like, at('2026-01-01T01:00:00Z'));
    expect(viewed).toBeGreaterThan(base);
    expect(liked).toBeGreaterThan(viewed);
  });

  it('lets recent attention beat old attention: an old hit sinks below a new story with a few views', () => {
    const publishedAt = at('2026-01-01T00:00:00Z');
    let oldHit = publicationHeat(publishedAt);
    for (let i = 0; i < 1000; i++) oldHit = addHeat(oldHit, HEAT_WEIGHTS.view, new Date(publishedAt.getTime() + hours(1)));
    // Twenty days later (≈13 half-lives: 2^13 > 1000) a fresh story with a handful of views is hotter.
    let fresh = publicationHeat(new Date(publishedAt.getTime() + hours(24 * 20)));
    for (let i = 0; i < 5; i++) fresh = addHeat(fresh, HEAT_WEIGHTS.view, new Date(publishedAt.getTime() + hours(24 * 20 + 1)));
    expect(fresh).toBeGreaterThan(oldHit);
  });

  it('is the log2 of decayed weights: two equal events make it exactly one higher', () => {
    const t = at('2026-03-01T00:00:00Z');
    const one = addHeat(null, 8, t);
    expect(addHeat(one, 8, t)).toBeCloseTo(one + 1, 12);
    // The same event one half-life later counts double.
    expect(addHeat(null, 8, new Date(t.getTime() + HOTNESS_HALF_LIFE_MS))).toBeCloseTo(one + 1, 12);
  });

  it('ignores events without weight and stays finite far from the epoch', () => {
    const t = at('2090-01-01T00:00:00Z');
    expect(addHeat(5, 0, t)).toBe(5);
    expect(Number.isFinite(addHeat(publicationHeat(t), 1e9, t))).toBe(true);
  });

  it('estimates from totals as publication plus the engagement at the last activity', () => {
    const datePublished = at('2025-06-01T00:00:00Z');
    const lastActivity = at('2025-06-03T00:00:00Z');
    const expected = addHeat(publicationHeat(datePublished), 10 * 1 + 2 * 5 + 1 * 3, lastActivity);
    expect(hotnessFromTotals({ datePublished, lastActivity, views: 10, likes: 2, comments: 1 })).toBeCloseTo(expected, 12);
  });
});

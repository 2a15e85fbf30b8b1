import { describe, expect, it } from 'vitest';
import { approximateBytes, countWithinBudget, ITEM_OVERHEAD_BYTES } from './budgets.js';

describe('approximateBytes', () => {
  it('counts UTF-8 bytes of text, through arrays and objects', () => {
    expect(approximateBytes('héllo')).toBe(6);
    expect(approximateBytes({ title: 'ab', tags: ['c', 'dé'], count: 3, at: new Date(0), none: null })).toBe(2 + 1 + 3 + 8 + 8);
  });
});

describe('countWithinBudget', () => {
  const sized = (bytes: number) => 'x'.repeat(bytes);

  it('keeps every item of a page under the budget', () => {
    expect(countWithinBudget([sized(10), sized(10)], 10_000)).toBe(2);
  });

  it('stops before the item that would exceed the budget', () => {
    const items = [sized(400), sized(400), sized(400)];
    expect(countWithinBudget(items, 2 * (400 + ITEM_OVERHEAD_BYTES))).toBe(2);
  });

  it('always keeps the first item, however large, so that every item stays reachable', () => {
    expect(countWithinBudget([sized(5_000), sized(1)], 1_000)).toBe(1);
    expect(countWithinBudget([], 1_000)).toBe(0);
  });
});

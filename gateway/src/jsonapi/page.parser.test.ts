import { describe, expect, it } from 'vitest';
import { parsePage } from './page.parser.js';

const cursor = { kind: 'cursor', defaultSize: 20, maxSize: 100 } as const;
const numbered = { kind: 'page', defaultSize: 100, maxSize: 1000 } as const;

describe('parsePage', () => {
  it('uses the default size and accepts 1 through the maximum', () => {
    expect(parsePage({}, cursor)).toEqual({ kind: 'cursor', size: 20, cursor: undefined });
    expect(parsePage({ size: '1', cursor: 'c' }, cursor)).toEqual({ kind: 'cursor', size: 1, cursor: 'c' });
    expect(parsePage({ size: '1000', number: '7' }, numbered)).toEqual({ kind: 'page', size: 1000, number: 7 });
  });

  it.each(['0', '-5', '+5', '05', '2.0', '1e2', '101', '99999999999', ''])('rejects page[size]=%j', (size) => {
    expect(() => parsePage({ size }, cursor)).toThrow(/page size from 1 to 100/);
  });

  it('keeps page[number] and page[cursor] to their kind of list', () => {
    expect(() => parsePage({ number: '2' }, cursor)).toThrow(/follow links.next/);
    expect(() => parsePage({ cursor: 'abc' }, numbered)).toThrow(/page\[number\]/);
  });
});

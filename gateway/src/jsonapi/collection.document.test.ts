import { describe, expect, it } from 'vitest';
import { resourceObject } from './document.builder.js';
import { collectionDocument, cursorLinks, numberedPageLinks, replaceQueryParameters } from './collection.document.js';

const base = 'https://api.example/api/v1/stories';

describe('replaceQueryParameters', () => {
  it('replaces the parameter whatever its encoding and keeps every other parameter byte for byte', () => {
    const url = `${base}?query=space%20opera+%C3%A9&filter[tags]=g:1,c:2&page%5Bcursor%5D=old&page[size]=5`;
    expect(replaceQueryParameters(url, { 'page[cursor]': 'new' })).toBe(`${base}?query=space%20opera+%C3%A9&filter[tags]=g:1,c:2&page[size]=5&page%5Bcursor%5D=new`);
    expect(replaceQueryParameters(url, { 'page[cursor]': undefined })).toBe(`${base}?query=space%20opera+%C3%A9&filter[tags]=g:1,c:2&page[size]=5`);
    expect(replaceQueryParameters(base, { 'page[cursor]': undefined })).toBe(base);
  });

  it('keeps pieces that are not valid percent-encoding', () => {
    expect(replaceQueryParameters(`${base}?x=%E0%A4`, { 'page[number]': '2' })).toBe(`${base}?x=%E0%A4&page%5Bnumber%5D=2`);
  });
});

describe('cursorLinks', () => {
  it('has next with the new cursor, first without a cursor, and self as requested', () => {
    const self = `${base}?sort=-rating&page[cursor]=abc&page[size]=2`;
    expect(cursorLinks(self, 'def')).toEqual({ self, first: `${base}?sort=-rating&page[size]=2`, next: `${base}?sort=-rating&page[size]=2&page%5Bcursor%5D=def` });
  });

  it('has no next on the last page and no prev at all', () => {
    expect(cursorLinks(base, undefined)).toEqual({ self: base, first: base });
  });
});

describe('numberedPageLinks', () => {
  const self = `${base}?page[number]=2&page[size]=10`;
  const at = (n: number): string => `${base}?page[size]=10&page%5Bnumber%5D=${n}`;

  it('has first, prev, next and last in the middle of a list', () => {
    expect(numberedPageLinks(self, { number: 2, size: 10 }, 35)).toEqual({ links: { self, first: at(1), prev: at(1), next: at(3), last: at(4) }, meta: { total: 35 } });
  });

  it('has no prev on page 1 and no next on the last page', () => {
    expect(numberedPageLinks(self, { number: 1, size: 10 }, 10).links).toEqual({ self, first: at(1), last: at(1) });
    expect(numberedPageLinks(self, { number: 4, size: 10 }, 35).links).not.toHaveProperty('next');
  });

  it('points prev at the last page from past the end, and treats an empty list as one page', () => {
    expect(numberedPageLinks(self, { number: 9, size: 10 }, 35).links).toEqual({ self, first: at(1), prev: at(4), last: at(4) });
    expect(numberedPageLinks(self, { number: 1, size: 10 }, 0)).toEqual({ links: { self, first: at(1), last: at(1) }, meta: { total: 0 } });
  });
});

describe('collectionDocument', () => {
  it('leaves out empty included and absent meta', () => {
    const data = [resourceObject('tag', 'g:1', { name: 'Adventure' })];
    expect(collectionDocument(data, { self: base, first: base })).toEqual({ data, links: { self: base, first: base } });
    expect(collectionDocument([], { self: base, first: base }, [], { total: 0 })).toEqual({ data: [], links: { self: base, first: base }, meta: { total: 0 } });
  });
});

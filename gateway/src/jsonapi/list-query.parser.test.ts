import { isAppError } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { CHAPTER, CHAPTER_DOCUMENT, MESSAGE_LIST, STORY, STORY_LIST, USER } from '../../test/fixtures/list-schemas.fixture.js';
import { defineDocumentSpec } from './list-spec.js';
import { parseDocumentQuery, parseListQuery } from './list-query.parser.js';

const q = (text: string): URLSearchParams => new URLSearchParams(text);

/** The public code, parameter and detail of the 400 thrown by `run`. */
function rejection(run: () => unknown): { code: string | undefined; parameter: string | undefined; detail: string | undefined } {
  try {
    run();
  } catch (error) {
    if (!isAppError(error)) throw error;
    const detail = error.details[0];
    return { code: detail?.reason, parameter: detail?.parameter, detail: detail?.detail };
  }
  throw new Error('expected a rejection');
}

describe('parseListQuery: defaults and values', () => {
  it('gives the defaults for an empty query', () => {
    const query = parseListQuery(STORY_LIST, q(''));
    expect(query.filters).toEqual({});
    expect(query.sort).toEqual({ field: 'date_published', descending: true });
    expect(query.search).toBeUndefined();
    expect(query.page).toEqual({ kind: 'cursor', size: 20, cursor: undefined });
    expect(query.include.size).toBe(0);
    expect(query.fields.size).toBe(0);
  });

  it('parses filters, sort, search, page, include and fields together', () => {
    const query = parseListQuery(
      STORY_LIST,
      q('filter[author]=7&filter[num_words]=100,&filter[tags]=g:1,c:2&query=%20space%20opera%20&sort=-relevance&page[size]=100&page[cursor]=abc&include=author,tags&fields[story]=title,author&fields[user]=name'),
    );
    expect(query.filters).toEqual({ author: '7', num_words: { min: 100 }, tags: ['c:2', 'g:1'] });
    expect(query.sort).toEqual({ field: 'relevance', descending: true });
    expect(query.search).toBe('space opera');
    expect(query.page).toEqual({ kind: 'cursor', size: 100, cursor: 'abc' });
    expect([...query.include.keys()]).toEqual(['author', 'tags']);
    expect(query.fields.get('story')).toEqual(new Set(['title', 'author']));
    expect(query.fields.get('user')).toEqual(new Set(['name']));
  });

  it('accepts percent-encoded brackets', () => {
    expect(parseListQuery(STORY_LIST, q('filter%5Bauthor%5D=7&page%5Bsize%5D=5')).filters).toEqual({ author: '7' });
  });

  it('passes search text of any length on, trimmed: the owning service enforces the limit (docs/api/lists.md)', () => {
    expect(parseListQuery(STORY_LIST, q(`query=%20${'x'.repeat(51)}%20`)).search).toBe('x'.repeat(51));
  });

  it('treats a blank query as no search', () => {
    expect(parseListQuery(STORY_LIST, q('query=%20%20')).search).toBeUndefined();
  });
});

describe('parseListQuery: rejections', () => {
  it.each([
    ['filter[nope]=1', 'invalid_parameter', 'filter[nope]'],
    ['filter[num_words]=10,5', 'invalid_parameter', 'filter[num_words]'],
    ['filter[num_words]=abc', 'invalid_parameter', 'filter[num_words]'],
    ['filter[date_published]=2026-02-30', 'invalid_parameter', 'filter[date_published]'],
    ['filter[status]=done', 'invalid_parameter', 'filter[status]'],
    ['filter[tags]=x:1', 'invalid_parameter', 'filter[tags]'],
    ['filter[ids]=1&filter[ids]=2', 'invalid_parameter', 'filter[ids]'],
    ['filter[ids]=1,,2', 'invalid_parameter', 'filter[ids]'],
    ['unknown=1', 'invalid_parameter', 'unknown'],
    ['query=a%00b', 'invalid_parameter', 'query'],
    ['filter[author]=1&sort=-num_words%00', 'invalid_parameter', 'sort'],
    ['page[offset]=2', 'invalid_parameter', 'page[offset]'],
    ['page[number]=2', 'invalid_parameter', 'page[number]'],
    ['page[size]=0', 'invalid_parameter', 'page[size]'],
    ['page[size]=-1', 'invalid_parameter', 'page[size]'],
    ['page[size]=1.5', 'invalid_parameter', 'page[size]'],
    ['page[size]=101', 'invalid_parameter', 'page[size]'],
    ['page[size]=', 'invalid_parameter', 'page[size]'],
    ['page[cursor]=', 'invalid_cursor', 'page[cursor]'],
    ['sort=date_published,num_words', 'too_many_sort_fields', 'sort'],
    ['sort=num_words&sort=date_published', 'too_many_sort_fields', 'sort'],
    ['sort=title', 'invalid_sort', 'sort'],
    ['sort=', 'invalid_sort', 'sort'],
    ['sort=-relevance', 'invalid_sort', 'sort'],
    ['sort=relevance&query=', 'invalid_sort', 'sort'],
    ['sort=date_added', 'invalid_sort', 'sort'],
    ['include=comments', 'invalid_include', 'include'],
    ['include=author.stories', 'invalid_include', 'include'],
    ['fields[story]=title,password', 'invalid_fields', 'fields[story]'],
    ['fields[comment]=content', 'invalid_fields', 'fields[comment]'],
  ])('%s → 400 %s naming %s', (text, code, parameter) => {
    expect(rejection(() => parseListQuery(STORY_LIST, q(text)))).toMatchObject({ code, parameter });
  });

  it('explains a sort field the list does not offer with its reason', () => {
    expect(rejection(() => parseListQuery(STORY_LIST, q('sort=-date_added')))).toMatchObject({ code: 'invalid_sort', detail: 'sort=date_added needs filter[bookshelf], which this list lacks.' });
  });

  it('names the known filters when a filter is unknown', () => {
    expect(rejection(() => parseListQuery(STORY_LIST, q('filter[author_id]=1'))).detail).toMatch(/Filters here: ids, author, num_words/);
  });

  it('reports relevance without a query even when the query comes later in the string', () => {
    expect(parseListQuery(STORY_LIST, q('sort=-relevance&query=dragons')).sort).toEqual({ field: 'relevance', descending: true });
  });

  it('rejects query on a list without search', () => {
    expect(rejection(() => parseListQuery(MESSAGE_LIST, q('query=x')))).toMatchObject({ code: 'invalid_parameter', parameter: 'query' });
  });
});

describe('parseListQuery: page-numbered lists', () => {
  it('defaults to page 1 of 100 and accepts up to 1000 per page', () => {
    expect(parseListQuery(MESSAGE_LIST, q('')).page).toEqual({ kind: 'page', size: 100, number: 1 });
    expect(parseListQuery(MESSAGE_LIST, q('page[number]=3&page[size]=1000')).page).toEqual({ kind: 'page', size: 1000, number: 3 });
  });

  it.each(['page[number]=0', 'page[number]=-2', 'page[number]=x', 'page[number]=1000001', 'page[size]=1001', 'page[cursor]=abc'])('rejects %s', (text) => {
    expect(rejection(() => parseListQuery(MESSAGE_LIST, q(text))).code).toBe('invalid_parameter');
  });

  it('parses boolean filters of 1/0', () => {
    expect(parseListQuery(MESSAGE_LIST, q('filter[read]=0')).filters).toEqual({ read: false });
  });
});

describe('parseDocumentQuery', () => {
  it('accepts include paths with their prefixes, and fields of reachable types', () => {
    const query = parseDocumentQuery(CHAPTER_DOCUMENT, q('include=story.author&fields[chapter]=title,content&fields[user]=name'));
    expect(query.include.get('story')?.has('author')).toBe(true);
    expect(parseDocumentQuery(CHAPTER_DOCUMENT, q('include=story')).include.get('story')?.size).toBe(0);
    expect(query.fields.get('chapter')).toEqual(new Set(['title', 'content']));
  });

  it('accepts an empty include and an empty fieldset', () => {
    const query = parseDocumentQuery(CHAPTER_DOCUMENT, q('include=&fields[chapter]='));
    expect(query.include.size).toBe(0);
    expect(query.fields.get('chapter')?.size).toBe(0);
  });

  it('rejects list parameters and unknown paths on a single resource', () => {
    expect(rejection(() => parseDocumentQuery(CHAPTER_DOCUMENT, q('sort=title')))).toMatchObject({ code: 'invalid_parameter', parameter: 'sort' });
    expect(rejection(() => parseDocumentQuery(CHAPTER_DOCUMENT, q('page[size]=2')))).toMatchObject({ code: 'invalid_parameter', parameter: 'page[size]' });
    expect(rejection(() => parseDocumentQuery(CHAPTER_DOCUMENT, q('include=story.chapters')))).toMatchObject({ code: 'invalid_include' });
    expect(rejection(() => parseDocumentQuery(CHAPTER_DOCUMENT, q('fields[tag]=name')))).toMatchObject({ code: 'invalid_fields', parameter: 'fields[tag]' });
  });
});

describe('unavailable fields', () => {
  const spec = defineDocumentSpec({
    resource: STORY,
    types: [USER, CHAPTER],
    includes: ['chapters'],
    unavailableFields: { chapter: { fields: ['content', 'content_html'], why: 'chapter content is returned by GET /chapters/:id only.' } },
  });

  it('rejects naming a field the endpoint cannot return, with the reason', () => {
    expect(rejection(() => parseDocumentQuery(spec, q('include=chapters&fields[chapter]=title,content_html')))).toMatchObject({
      code: 'invalid_fields',
      parameter: 'fields[chapter]',
      detail: '"content_html" is not available here: chapter content is returned by GET /chapters/:id only.',
    });
    expect(parseDocumentQuery(spec, q('include=chapters&fields[chapter]=title')).fields.get('chapter')).toEqual(new Set(['title']));
  });
});

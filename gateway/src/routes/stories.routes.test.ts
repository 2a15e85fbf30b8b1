import { isAppError } from '@inkwell/errors';
import { describe, expect, it } from 'vitest';
import { parseDocumentQuery, parseListQuery } from '../jsonapi/index.js';
import { CHAPTER_DOCUMENT, CHAPTER_LIST } from './chapters.routes.js';
import { STORY_DOCUMENT, STORY_LIST, USER_STORY_LIST } from '../resources/story.resource.js';
import { TAG_LIST } from '../resources/tag.resource.js';

const q = (text: string): URLSearchParams => new URLSearchParams(text);

function reason(run: () => unknown): [string | undefined, string | undefined, string | undefined] {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return [error.details[0]?.reason, error.details[0]?.parameter, error.details[0]?.detail];
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('GET /stories parameters', () => {
  it('accepts every filter of GET /stories, together', () => {
    const query = parseListQuery(
      STORY_LIST,
      q('filter[ids]=3,1&filter[author]=2&filter[num_words]=100,5000&filter[status]=on-hiatus&filter[date_published]=2026-01-01,&filter[date_updated]=,2026-11-26T12:00:00Z&filter[tags]=g:1,c:2&filter[bookshelf]=9&filter[unread]=1'),
    );
    expect(Object.keys(query.filters).sort()).toEqual(['author', 'bookshelf', 'date_published', 'date_updated', 'ids', 'num_words', 'status', 'tags', 'unread']);
    expect(query.filters).toMatchObject({ bookshelf: '9', unread: true });
    expect(parseListQuery(STORY_LIST, q('filter[unread]=false')).filters).toEqual({ unread: false });
  });

  it.each(['date_published', 'hotness', 'date_modified', 'date_updated', 'rating', 'num_words', 'num_views', 'num_comments', 'num_likes', 'num_dislikes', 'date_added'])('sorts by %s in both directions', (field) => {
    expect(parseListQuery(STORY_LIST, q(`sort=${field}`)).sort).toEqual({ field, descending: false });
    expect(parseListQuery(STORY_LIST, q(`sort=-${field}`)).sort).toEqual({ field, descending: true });
  });

  it('reads filter[date_updated] as filter[date_published]: whole UTC days, open sides, min after max refused', () => {
    const updated = (text: string) => parseListQuery(STORY_LIST, q(`filter[date_updated]=${text}`)).filters.date_updated;
    expect(updated('2026-11-20,2026-11-26')).toEqual(parseListQuery(STORY_LIST, q('filter[date_published]=2026-11-20,2026-11-26')).filters.date_published);
    expect(updated('2026-11-20T10:00:00%2B02:00,')).toEqual({ min: parseListQuery(STORY_LIST, q('filter[date_published]=2026-11-20T08:00:00Z,')).filters.date_published!.min });
    for (const text of ['filter[date_updated]=2026-11-27,2026-11-26', 'filter[date_updated]=2026-02-30', 'filter[date_updated]=', 'filter[date_updated]=yesterday']) {
      expect(reason(() => parseListQuery(STORY_LIST, q(text))).slice(0, 2), text).toEqual(['invalid_parameter', 'filter[date_updated]']);
    }
    expect(reason(() => parseListQuery(USER_STORY_LIST, q('filter[date_updated]=2026-11-26')))).toEqual(expect.arrayContaining(['invalid_parameter', 'filter[date_updated]']));
    expect(parseListQuery(USER_STORY_LIST, q('sort=-date_updated')).sort).toEqual({ field: 'date_updated', descending: true });
  });

  it('checks the syntax of the shelf filters (their rules are the service\'s)', () => {
    for (const text of ['filter[bookshelf]=me', 'filter[bookshelf]=01', 'filter[bookshelf]=1,2', 'filter[bookshelf]=', 'filter[unread]=yes', 'filter[unread]=TRUE', 'filter[unread]=']) {
      expect(reason(() => parseListQuery(STORY_LIST, q(text))).slice(0, 2), text).toEqual(['invalid_parameter', text.slice(0, text.indexOf('='))]);
    }
  });

  it('refuses num_words beyond 32 bits and chapter content in story documents', () => {
    expect(reason(() => parseListQuery(STORY_LIST, q('filter[num_words]=,2147483648')))[0]).toBe('invalid_parameter');
    expect(reason(() => parseDocumentQuery(STORY_DOCUMENT, q('include=chapters&fields[chapter]=content')))[0]).toBe('invalid_fields');
  });
});

describe('other story-side lists', () => {
  it('GET /users/:id/stories takes filter[published] and no search', () => {
    expect(parseListQuery(USER_STORY_LIST, q('filter[published]=0')).filters).toEqual({ published: false });
    expect(reason(() => parseListQuery(USER_STORY_LIST, q('query=x')))[0]).toBe('invalid_parameter');
    expect(reason(() => parseListQuery(USER_STORY_LIST, q('sort=-relevance')))[0]).toBe('invalid_sort');
  });

  it('GET /users/:id/stories refuses sort=date_added: it has no shelf', () => {
    const [code, parameter, detail] = reason(() => parseListQuery(USER_STORY_LIST, q('sort=date_added')));
    expect([code, parameter]).toEqual(['invalid_sort', 'sort']);
    expect(detail).toMatch(/filter\[bookshelf\]/);
  });

  it('chapter lists have no sort and offer content on request; a chapter by id offers content and story.author', () => {
    expect(reason(() => parseListQuery(CHAPTER_LIST, q('sort=title')))[0]).toBe('invalid_sort');
    expect(parseListQuery(CHAPTER_LIST, q('fields[chapter]=title,content_html')).fields.get('chapter')).toEqual(new Set(['title', 'content_html']));
    expect(parseDocumentQuery(CHAPTER_DOCUMENT, q('include=story.author&fields[chapter]=content')).fields.get('chapter')).toEqual(new Set(['content']));
  });

  it('tags sort by name or num_stories and default to catalogue order', () => {
    expect(parseListQuery(TAG_LIST, q('')).sort).toBeUndefined();
    expect(parseListQuery(TAG_LIST, q('sort=-num_stories&filter[kind]=genre'))).toMatchObject({ sort: { field: 'num_stories', descending: true }, filters: { kind: 'genre' } });
    expect(reason(() => parseListQuery(TAG_LIST, q('include=stories')))[0]).toBe('invalid_include');
  });
});

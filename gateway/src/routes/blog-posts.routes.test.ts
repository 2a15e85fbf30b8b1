import { describe, expect, it } from 'vitest';
import { cursorBinding, parseListQuery, type ListSpec } from '../jsonapi/index.js';
import { BLOG_POST_LIST, USER_BLOG_POST_LIST } from '../resources/blog-post.resource.js';

const parse = (query: string) => parseListQuery(BLOG_POST_LIST, new URLSearchParams(query));

function refusal(query: string, spec: ListSpec = BLOG_POST_LIST): { parameter?: string; reason?: string } {
  try {
    parseListQuery(spec, new URLSearchParams(query));
  } catch (error) {
    return (error as { details: { parameter?: string; reason?: string }[] }).details[0] ?? {};
  }
  throw new Error(`${query} was accepted`);
}

describe('BLOG_POST_LIST', () => {
  it('defaults to cursor pages of 20, newest first', () => {
    const query = parse('');
    expect(query.page).toEqual({ kind: 'cursor', size: 20, cursor: undefined });
    expect(query.sort).toEqual({ field: 'date_posted', descending: true });
    expect(query.search).toBeUndefined();
  });

  it('normalises tag filters like stored tags: trimmed, collapsed, lower case, deduplicated', () => {
    expect(parse('filter[tags]=%20Slice%20%20of%20Life,NEWS,news').filters.tags).toEqual(['news', 'slice of life']);
    expect(parse('filter[site_post_tag]=%20Announcement%20').filters.site_post_tag).toBe('announcement');
  });

  it('gives the same cursor binding to tag filters that match the same posts', () => {
    const caller = { requestId: 'r', userId: '1', scopes: [] };
    const a = cursorBinding(parse('filter[tags]=News,art'), '/api/v1/blog-posts', caller);
    const b = cursorBinding(parse('filter[tags]=art,%20news'), '/api/v1/blog-posts', caller);
    const c = cursorBinding(parse('filter[tags]=art'), '/api/v1/blog-posts', caller);
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  it('refuses more tags than a list takes, and leaves blank or over-long tags to the blog service (docs/api/blog.md)', () => {
    const many = Array.from({ length: 101 }, (_, i) => `t${i}`).join(',');
    expect(refusal(`filter[tags]=${many}`)).toMatchObject({ reason: 'invalid_parameter', parameter: 'filter[tags]' });
    expect(parse('filter[tags]=a,,b').filters.tags).toEqual(['', 'a', 'b']);
    expect(parse(`filter[tags]=${'x'.repeat(51)}`).filters.tags).toEqual(['x'.repeat(51)]);
  });

  it('sorts by date_posted, num_views and relevance (with a query) only', () => {
    expect(parse('sort=num_views').sort).toEqual({ field: 'num_views', descending: false });
    expect(parse('query=x&sort=-relevance').sort).toEqual({ field: 'relevance', descending: true });
    expect(refusal('sort=relevance')).toMatchObject({ reason: 'invalid_sort' });
    expect(refusal('sort=title')).toMatchObject({ reason: 'invalid_sort' });
  });

  it('offers author, stories and stories.author to include; other paths are 400', () => {
    expect([...parse('include=author,stories.author').include.keys()]).toEqual(['author', 'stories']);
    expect(refusal('include=stories.chapters')).toMatchObject({ reason: 'invalid_include' });
  });
});

describe('USER_BLOG_POST_LIST', () => {
  it('is the same list without filter[author] (the path names the author)', () => {
    expect(refusal('filter[author]=1', USER_BLOG_POST_LIST)).toMatchObject({ reason: 'invalid_parameter', parameter: 'filter[author]' });
    expect(Object.keys(USER_BLOG_POST_LIST.filters).sort()).toEqual(Object.keys(BLOG_POST_LIST.filters).filter((name) => name !== 'author').sort());
  });
});

import { describe, expect, it } from 'vitest';
import type { StoryListQuery } from '../domain/story-query.js';
import { storySearchBody } from './story-index.query.js';

const base: StoryListQuery = { publication: 'published', sort: { field: 'date_published', direction: 'desc' }, limit: 20 };

describe('storySearchBody', () => {
  it('never hands user text to a query-syntax parser', () => {
    const body = JSON.stringify(storySearchBody({ ...base, text: 'title:x AND (y OR z) "a b" -c or d *', sort: { field: 'relevance', direction: 'desc' } }, true));
    expect(body).not.toMatch(/query_string|simple_query_string|"script"|regexp|wildcard/);
  });

  it('matches nothing for a query without terms, and everything but the excluded for exclusions only', () => {
    expect(storySearchBody({ ...base, text: '"" or' }, false)).toMatchObject({ query: { bool: { must: [{ match_none: {} }] } } });
    const only = storySearchBody({ ...base, text: '-dragon' }, false) as { query: { bool: { must: unknown[]; must_not: unknown[] } } };
    expect(only.query.bool.must).toEqual([]);
    expect(only.query.bool.must_not).toHaveLength(1);
  });

  it('boosts a title equal to the positive words, and not for an or', () => {
    const body = storySearchBody({ ...base, text: 'Heart -gold' }, false) as { query: { bool: { should?: unknown[] } } };
    expect(body.query.bool.should).toEqual([{ constant_score: { filter: { match: { 'title.exact': 'Heart' } }, boost: 100 } }]);
    expect((storySearchBody({ ...base, text: 'heart or soul' }, false) as { query: { bool: { should?: unknown[] } } }).query.bool.should).toBeUndefined();
  });

  it('sorts with ties by id, rating without votes last both ways, and continues after a position', () => {
    expect(storySearchBody({ ...base, sort: { field: 'rating', direction: 'asc' } }, false).sort).toEqual([{ rating: { order: 'asc', missing: 101 } }, { id: { order: 'asc' } }]);
    expect(storySearchBody({ ...base, sort: { field: 'rating', direction: 'desc' } }, false).sort).toEqual([{ rating: { order: 'desc', missing: -1 } }, { id: { order: 'desc' } }]);
    expect(storySearchBody({ ...base, sort: { field: 'relevance', direction: 'asc' }, text: 'x' }, false).sort).toEqual([{ _score: { order: 'asc' } }, { id: { order: 'asc' } }]);
    expect(storySearchBody({ ...base, after: { key: '1712345678000', id: '42' } }, false)).toMatchObject({ search_after: [1712345678000, '42'], size: 21 });
  });

  it('filters every tag (all of them), ranges inclusively, and counts tags only when asked', () => {
    const body = storySearchBody({ ...base, tagIds: ['g:1', 'c:2'], numWordsMin: 10, datePublishedMax: new Date('2026-01-01T00:00:00Z') }, true);
    expect(body).toMatchObject({
      query: {
        bool: {
          filter: [
            { range: { num_words: { gte: 10 } } },
            { range: { date_published: { lte: '2026-01-01T00:00:00.000Z' } } },
            { term: { tag_ids: 'g:1' } },
            { term: { tag_ids: 'c:2' } },
          ],
        },
      },
      aggs: { tags: { terms: { field: 'tag_ids' } } },
      track_total_hits: 10_000,
    });
    expect(storySearchBody(base, false)).not.toHaveProperty('aggs');
  });
});

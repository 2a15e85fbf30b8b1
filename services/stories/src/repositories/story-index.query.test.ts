import { describe, expect, it } from 'vitest';
import type { StoryListQuery } from '../domain/story-query.js';
import { storySearchBody, storyTagCountsBody } from './story-index.query.js';

const base: StoryListQuery = { publication: 'published', sort: { field: 'date_published', direction: 'desc' }, limit: 20 };
const byRelevance: StoryListQuery = { ...base, sort: { field: 'relevance', direction: 'desc' } };

type Bool = { must?: unknown[]; filter: unknown[]; must_not?: unknown[]; should?: unknown[]; minimum_should_match?: number };
const boolOf = (body: Record<string, unknown>) => (body.query as { bool: Bool }).bool;

describe('storySearchBody', () => {
  it('never hands user text to a query-syntax parser', () => {
    const query = { ...byRelevance, text: 'title:x AND (y OR z) "a b" -c or d *' };
    const bodies = JSON.stringify([storySearchBody(query), storyTagCountsBody(query)]);
    expect(bodies).not.toMatch(/query_string|simple_query_string|"script"|regexp|wildcard/);
  });

  it('matches nothing for a query without terms, and everything but the excluded for exclusions only', () => {
    expect(boolOf(storySearchBody({ ...byRelevance, text: '"" or' })).filter).toEqual([{ match_none: {} }]);
    const only = boolOf(storySearchBody({ ...byRelevance, text: '-dragon' }));
    expect(only.filter).toEqual([]);
    expect(only.must_not).toHaveLength(1);
    expect(only.should).toBeUndefined();
  });

  it('by relevance, ranks by the bare words that decide the matches, adds the other positive words and an exact title', () => {
    const ranked = boolOf(storySearchBody({ ...byRelevance, text: 'Heart "lost crown" -gold' }));
    expect(ranked.must).toEqual([{ match: { search_text: { query: 'Heart', operator: 'and', zero_terms_query: 'all' } } }]);
    expect(ranked.filter).toEqual([{ match_phrase: { search_text: 'lost crown' } }]);
    expect(ranked.must_not).toEqual([{ match: { search_text: { query: 'gold', operator: 'and' } } }]);
    expect(ranked.should).toEqual([
      { match: { search_text: { query: 'lost crown', operator: 'or' } } },
      { constant_score: { filter: { match: { 'title.exact': 'Heart lost crown' } }, boost: 100 } },
    ]);
    // The conjunction is required, so the other clauses only add to its score.
    expect(ranked).not.toHaveProperty('minimum_should_match');
  });

  it('leaves out stories with an excluded tag and keeps any of the ratings, in the page and in its tag counts alike', () => {
    const query: StoryListQuery = { ...base, tagIds: ['g:1'], excludedTagIds: ['g:3', 'c:12'], contentRatings: ['everyone', 'teen'], text: 'dragon -gold' };
    for (const bool of [boolOf(storySearchBody(query)), boolOf(storyTagCountsBody(query))]) {
      expect(bool.filter).toContainEqual({ term: { tag_ids: 'g:1' } });
      expect(bool.filter).toContainEqual({ terms: { content_rating: ['everyone', 'teen'] } });
      expect(bool.must_not).toEqual([{ terms: { tag_ids: ['g:3', 'c:12'] } }, { match: { search_text: { query: 'gold', operator: 'and' } } }]);
    }
    expect(boolOf(storySearchBody({ ...base, excludedTagIds: ['g:3'] })).must_not).toEqual([{ terms: { tag_ids: ['g:3'] } }]);
  });

  it('matches in filter context alone under any other sort', () => {
    const unranked = boolOf(storySearchBody({ ...base, text: 'Heart "lost crown" -gold' }));
    expect(unranked).toEqual({
      filter: [{ match: { search_text: { query: 'Heart', operator: 'and', zero_terms_query: 'all' } } }, { match_phrase: { search_text: 'lost crown' } }],
      must_not: [{ match: { search_text: { query: 'gold', operator: 'and' } } }],
    });
  });

  it('requires all bare words in one clause, and lets a query of stop words alone match nothing', () => {
    expect(boolOf(storySearchBody({ ...byRelevance, text: 'the heart crown' })).must).toEqual([{ match: { search_text: { query: 'the heart crown', operator: 'and' } } }]);
  });

  it('scores every alternative of an or, without an exact title, and requires one of them', () => {
    const bool = boolOf(storySearchBody({ ...byRelevance, text: 'heart or soul' }));
    expect(bool.filter).toEqual([{ bool: { should: [{ match: { search_text: { query: 'heart', operator: 'and' } } }, { match: { search_text: { query: 'soul', operator: 'and' } } }], minimum_should_match: 1 } }]);
    expect(bool.should).toEqual([{ match: { search_text: { query: 'heart soul', operator: 'or' } } }]);
    expect(bool.minimum_should_match).toBe(1);
  });

  it('sorts with ties by id, rating without votes last both ways, and continues after a position', () => {
    expect(storySearchBody({ ...base, sort: { field: 'rating', direction: 'asc' } }).sort).toEqual([{ rating: { order: 'asc', missing: 101 } }, { id: { order: 'asc' } }]);
    expect(storySearchBody({ ...base, sort: { field: 'rating', direction: 'desc' } }).sort).toEqual([{ rating: { order: 'desc', missing: -1 } }, { id: { order: 'desc' } }]);
    expect(storySearchBody({ ...base, sort: { field: 'relevance', direction: 'asc' }, text: 'x' }).sort).toEqual([{ _score: { order: 'asc' } }, { id: { order: 'asc' } }]);
    expect(storySearchBody({ ...base, after: { key: '1712345678000', id: '42' } })).toMatchObject({ search_after: [1712345678000, '42'], size: 21, _source: true });
  });

  it('filters every tag (all of them) and ranges inclusively, and counts tags for the same matches without scoring or hits', () => {
    const query = { ...byRelevance, text: 'heart', tagIds: ['g:1', 'c:2'], numWordsMin: 10, datePublishedMax: new Date('2026-01-01T00:00:00Z') };
    const body = storySearchBody({ ...query, sort: base.sort });
    expect(body).toMatchObject({
      query: {
        bool: {
          filter: [
            { range: { num_words: { gte: 10 } } },
            { range: { date_published: { lte: '2026-01-01T00:00:00.000Z' } } },
            { term: { tag_ids: 'g:1' } },
            { term: { tag_ids: 'c:2' } },
            { match: { search_text: { query: 'heart', operator: 'and' } } },
          ],
        },
      },
      track_total_hits: 10_000,
    });
    expect(body).not.toHaveProperty('aggs');
    const counts = storyTagCountsBody(query);
    expect(counts).toMatchObject({ size: 0, track_total_hits: false, aggs: { tags: { terms: { field: 'tag_ids' } } } });
    expect(counts.query).toEqual(body.query);
    expect(counts).not.toHaveProperty('sort');
  });

  it('sorts by date_updated with stories never updated last both ways, and filters it as an inclusive range', () => {
    expect(storySearchBody({ ...base, sort: { field: 'date_updated', direction: 'asc' } }).sort).toEqual([
      { date_updated: { order: 'asc', missing: Date.parse('9999-12-31T23:59:59.999Z'), unmapped_type: 'date' } },
      { id: { order: 'asc' } },
    ]);
    expect(storySearchBody({ ...base, sort: { field: 'date_updated', direction: 'desc' } }).sort).toEqual([{ date_updated: { order: 'desc', missing: 0, unmapped_type: 'date' } }, { id: { order: 'desc' } }]);
    const week = { dateUpdatedMin: new Date('2026-11-20T00:00:00Z'), dateUpdatedMax: new Date('2026-11-26T23:59:59.999Z') };
    expect(boolOf(storySearchBody({ ...base, ...week })).filter).toEqual([{ range: { date_updated: { gte: '2026-11-20T00:00:00.000Z', lte: '2026-11-26T23:59:59.999Z' } } }]);
    expect(boolOf(storySearchBody({ ...base, dateUpdatedMin: week.dateUpdatedMin, datePublishedMax: week.dateUpdatedMax })).filter).toEqual([
      { range: { date_published: { lte: '2026-11-26T23:59:59.999Z' } } },
      { range: { date_updated: { gte: '2026-11-20T00:00:00.000Z' } } },
    ]);
  });
});

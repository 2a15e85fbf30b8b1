import { STORY_LIST_EXACT_TOTAL_MAX } from '@inkwell/limits';
import { parseSearchQuery, positiveText, type SearchTerm } from '../domain/search-query.js';
import type { StoryListQuery } from '../domain/story-query.js';
import { EXACT_TITLE_BOOST, SEARCH_FIELDS } from '../search/story-index.mapping.js';

/** Buckets of the tag facet: more than the tag catalogue has, so every tag with a match is counted. */
export const TAG_FACET_SIZE = 2_000;

/** A JSON object of the OpenSearch query DSL. */
type Dsl = Record<string, unknown>;

/** A term of a query as a clause over the weighted fields: all its words in any of them, or the phrase in one. */
function termClause(term: SearchTerm): Dsl {
  return term.kind === 'phrase'
    ? { multi_match: { query: term.text, type: 'phrase', fields: [...SEARCH_FIELDS], tie_breaker: FIELD_TIE_BREAKER } }
    : { multi_match: { query: term.text, type: 'cross_fields', operator: 'and', fields: [...SEARCH_FIELDS], tie_breaker: FIELD_TIE_BREAKER } };
}

/** The share of a word's score in its other matching fields added to its best field's: a word in several fields ranks higher. */
const FIELD_TIE_BREAKER = 0.3;

/**
 * The scoring part of `query` text (docs/api/stories.md, "Search"): bare words together must all
 * match, each in any field (one cross-field query, so that stop words drop out instead of
 * matching nothing); every phrase and every `or` group must match; excluded terms must not. A
 * title equal to the whole text adds {@link EXACT_TITLE_BOOST}. User text only ever reaches
 * `multi_match`/`match`, which analyse it as plain text: it is never parsed as query syntax.
 */
function textQuery(text: string): { must: Dsl[]; mustNot: Dsl[]; should: Dsl[] } {
  const expression = parseSearchQuery(text);
  if (expression.all.length === 0 && expression.none.length === 0) return { must: [{ match_none: {} }], mustNot: [], should: [] };
  const words = expression.all.filter((group) => group.length === 1 && group[0]!.kind === 'word').map((group) => group[0]!.text);
  const must: Dsl[] = [];
  if (words.length > 0) must.push(termClause({ kind: 'word', text: words.join(' ') }));
  for (const group of expression.all) {
    if (group.length === 1 && group[0]!.kind === 'word') continue;
    must.push(group.length === 1 ? termClause(group[0]!) : { bool: { should: group.map(termClause), minimum_should_match: 1 } });
  }
  const exact = positiveText(expression);
  const should = exact === '' ? [] : [{ constant_score: { filter: { match: { 'title.exact': exact } }, boost: EXACT_TITLE_BOOST } }];
  return { must, mustNot: expression.none.map(termClause), should };
}

/** The filters of a list, in filter context (they do not score). */
function filterClauses(query: StoryListQuery): Dsl[] {
  const filter: Dsl[] = [];
  if (query.ids) filter.push({ terms: { id: query.ids } });
  if (query.authorId !== undefined) filter.push({ term: { author_id: query.authorId } });
  if (query.status !== undefined) filter.push({ term: { status: query.status } });
  if (query.numWordsMin !== undefined || query.numWordsMax !== undefined) {
    filter.push({ range: { num_words: { ...(query.numWordsMin !== undefined ? { gte: query.numWordsMin } : {}), ...(query.numWordsMax !== undefined ? { lte: query.numWordsMax } : {}) } } });
  }
  if (query.datePublishedMin || query.datePublishedMax) {
    filter.push({
      range: {
        date_published: {
          ...(query.datePublishedMin ? { gte: query.datePublishedMin.toISOString() } : {}),
          ...(query.datePublishedMax ? { lte: query.datePublishedMax.toISOString() } : {}),
        },
      },
    });
  }
  for (const tag of query.tagIds ?? []) filter.push({ term: { tag_ids: tag } });
  return filter;
}

/**
 * The sort of a list, ties by id in the same direction; a story without votes sorts last both
 * ways by rating (the missing value stands in beyond either end of 0–100).
 */
function sortClauses(query: StoryListQuery): Dsl[] {
  const { field, direction: order } = query.sort;
  const byId = { id: { order } };
  if (field === 'relevance') return [{ _score: { order } }, byId];
  if (field === 'rating') return [{ rating: { order, missing: order === 'asc' ? 101 : -1 } }, byId];
  if (field === 'date_added') throw new TypeError('date_added is a bookshelf order; the index has none');
  return [{ [field]: { order } }, byId];
}

/**
 * The body of the `_search` of one page of a published-story list: `limit + 1` hits (to tell
 * whether more follow) after the position `query.after` (the sort value and id of the last story
 * of the previous page, see `search_after`), ids and sort values only, the total counted up to
 * {@link STORY_LIST_EXACT_TOTAL_MAX}, and with `facets` the number of matches per tag.
 */
export function storySearchBody(query: StoryListQuery, facets: boolean): Dsl {
  const bool: { filter: Dsl[]; must?: Dsl[]; must_not?: Dsl[]; should?: Dsl[] } = { filter: filterClauses(query) };
  if (query.text !== undefined) {
    const text = textQuery(query.text);
    bool.must = text.must;
    if (text.mustNot.length > 0) bool.must_not = text.mustNot;
    if (text.should.length > 0) bool.should = text.should;
  }
  return {
    query: { bool },
    sort: sortClauses(query),
    size: query.limit + 1,
    _source: false,
    track_total_hits: STORY_LIST_EXACT_TOTAL_MAX,
    ...(query.after ? { search_after: [query.after.key === null ? null : Number(query.after.key), query.after.id] } : {}),
    ...(facets ? { aggs: { tags: { terms: { field: 'tag_ids', size: TAG_FACET_SIZE } } } } : {}),
  };
}

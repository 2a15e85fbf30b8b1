import { STORY_LIST_EXACT_TOTAL_MAX } from '@inkwell/limits';
import { parseSearchQuery, positiveText, type SearchTerm } from '../domain/search-query.js';
import type { StoryListQuery } from '../domain/story-query.js';
import { EXACT_TITLE_BOOST, SEARCH_FIELDS } from '../search/story-index.mapping.js';

/** Buckets of the tag facet: more than the tag catalogue has, so every tag with a match is counted. */
export const TAG_FACET_SIZE = 2_000;

/** A JSON object of the OpenSearch query DSL. */
type Dsl = Record<string, unknown>;

/** Whether a story matches a term of a query: all its words in any field, or the phrase in one (filter context, no score). */
function termClause(term: SearchTerm): Dsl {
  return term.kind === 'phrase'
    ? { multi_match: { query: term.text, type: 'phrase', fields: [...SEARCH_FIELDS] } }
    : { multi_match: { query: term.text, type: 'cross_fields', operator: 'and', fields: [...SEARCH_FIELDS] } };
}

/**
 * What `query` text asks of a story (docs/api/stories.md, "Search"): which stories match, and with
 * a relevance sort how they score. Matching is filter context: bare words together must all
 * match, each in any field (one cross-field query, so that stop words drop out instead of
 * matching nothing); every phrase and every `or` group must match; excluded terms must not. The
 * score is kept apart from matching, as one disjunction of every positive word over the weighted
 * fields (each field's BM25 score, weighted, summed) plus {@link EXACT_TITLE_BOOST} for a title
 * equal to the whole text: a disjunction the engine can rank by skipping blocks of documents
 * that cannot reach the page, where a conjunction of per-word scores made it score every match.
 * User text only ever reaches `multi_match`/`match`, which analyse it as plain text: it is never
 * parsed as query syntax.
 */
function textQuery(text: string, scored: boolean): { filter: Dsl[]; mustNot: Dsl[]; should: Dsl[] } {
  const expression = parseSearchQuery(text);
  if (expression.all.length === 0 && expression.none.length === 0) return { filter: [{ match_none: {} }], mustNot: [], should: [] };
  const words = expression.all.filter((group) => group.length === 1 && group[0]!.kind === 'word').map((group) => group[0]!.text);
  const filter: Dsl[] = [];
  if (words.length > 0) filter.push(termClause({ kind: 'word', text: words.join(' ') }));
  for (const group of expression.all) {
    if (group.length === 1 && group[0]!.kind === 'word') continue;
    filter.push(group.length === 1 ? termClause(group[0]!) : { bool: { should: group.map(termClause), minimum_should_match: 1 } });
  }
  const mustNot = expression.none.map(termClause);
  if (!scored) return { filter, mustNot, should: [] };
  const positive = expression.all.flat().map((term) => term.text);
  const should: Dsl[] = positive.length === 0 ? [] : [{ multi_match: { query: positive.join(' '), type: 'most_fields', fields: [...SEARCH_FIELDS] } }];
  const exact = positiveText(expression);
  if (exact !== '') should.push({ constant_score: { filter: { match: { 'title.exact': exact } }, boost: EXACT_TITLE_BOOST } });
  return { filter, mustNot, should };
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

/** The query of a list: its filters and text matching, and with `scored` the relevance score of its text. */
function listQuery(query: StoryListQuery, scored: boolean): Dsl {
  const bool: { filter: Dsl[]; must_not?: Dsl[]; should?: Dsl[]; minimum_should_match?: number } = { filter: filterClauses(query) };
  if (query.text !== undefined) {
    const text = textQuery(query.text, scored);
    bool.filter.push(...text.filter);
    if (text.mustNot.length > 0) bool.must_not = text.mustNot;
    // Every story the filters let through contains a positive word, so requiring one scoring
    // clause leaves the matches as they are and lets the engine skip what cannot rank.
    if (text.should.length > 0) Object.assign(bool, { should: text.should, minimum_should_match: 1 });
  }
  return { bool };
}

/**
 * The body of the `_search` of one page of a published-story list: `limit + 1` hits (to tell
 * whether more follow) after the position `query.after` (the sort value and id of the last story
 * of the previous page, see `search_after`), sort values only (the last is the id), and the total counted up
 * to {@link STORY_LIST_EXACT_TOTAL_MAX}.
 */
export function storySearchBody(query: StoryListQuery): Dsl {
  return {
    query: listQuery(query, query.sort.field === 'relevance'),
    sort: sortClauses(query),
    size: query.limit + 1,
    // The sort values end with the id, so hits need no stored field (not even _id, which the
    // node would otherwise read and decompress for each hit).
    stored_fields: '_none_',
    track_total_hits: STORY_LIST_EXACT_TOTAL_MAX,
    ...(query.after ? { search_after: [query.after.key === null ? null : Number(query.after.key), query.after.id] } : {}),
  };
}

/**
 * The body of the `_search` of a list's tag facet (`facets=tags`): the number of matches per tag,
 * no hits, and the query without scores (the page's own search ranks; this one only counts, so
 * it runs beside it instead of making the page's search score every match).
 */
export function storyTagCountsBody(query: StoryListQuery): Dsl {
  return {
    query: listQuery(query, false),
    size: 0,
    track_total_hits: false,
    aggs: { tags: { terms: { field: 'tag_ids', size: TAG_FACET_SIZE } } },
  };
}

import { STORY_LIST_EXACT_TOTAL_MAX } from '@inkwell/limits';
import { parseSearchQuery, positiveText, type SearchTerm } from '../domain/search-query.js';
import type { StoryListQuery } from '../domain/story-query.js';
import { EXACT_TITLE_BOOST, exactTitleText, SEARCH_TEXT_FIELD } from '../search/story-index.mapping.js';

/** Buckets of the tag facet: more than the tag catalogue has, so every tag with a match is counted. */
export const TAG_FACET_SIZE = 2_000;

/** A JSON object of the OpenSearch query DSL. */
type Dsl = Record<string, unknown>;

/** Whether a story matches a term of a query: all its words, or the phrase within one field's value. */
function termClause(term: SearchTerm): Dsl {
  return term.kind === 'phrase' ? { match_phrase: { [SEARCH_TEXT_FIELD]: term.text } } : wordsClause(term.text, 'and');
}

/**
 * The words of `text` in the weighted text: all of them (`and`) or any (`or`). Text without a
 * searchable word (only stop words or punctuation) matches nothing, or with `orElseAll` everything
 * (stop words beside a phrase or an `or` leave the query to those).
 */
function wordsClause(text: string, operator: 'and' | 'or', orElseAll = false): Dsl {
  return { match: { [SEARCH_TEXT_FIELD]: { query: text, operator, ...(orElseAll ? { zero_terms_query: 'all' } : {}) } } };
}

/** The clauses of a `bool` that a query's text adds. */
interface TextClauses {
  must: Dsl[];
  filter: Dsl[];
  mustNot: Dsl[];
  should: Dsl[];
}

/**
 * What `query` text asks of a story (docs/api/stories.md, "Search"), over the one weighted text
 * field (each field repeated by its weight, see the mapping): bare words must all
 * match, every phrase and every `or` group must match, excluded terms must not. With `scored`,
 * the score is one BM25 sum over every positive word plus {@link EXACT_TITLE_BOOST} for a title
 * equal to the whole text (read as {@link exactTitleText} reads titles). The bare words are one scored conjunction (`must`), the clause that
 * decides the matches also ranking them, so the engine can skip blocks of documents that cannot
 * reach the page; the words of phrases and `or` groups add their scores beside it (`should`),
 * which every match has, since it holds one of them. Without `scored` everything is filter
 * context. User text only ever reaches `match`/`match_phrase`, which analyse it as plain text:
 * it is never parsed as query syntax.
 */
function textQuery(text: string, scored: boolean): TextClauses {
  const expression = parseSearchQuery(text);
  if (expression.all.length === 0 && expression.none.length === 0) return { must: [], filter: [{ match_none: {} }], mustNot: [], should: [] };
  const bare = (group: SearchTerm[]) => group.length === 1 && group[0]!.kind === 'word';
  const words = expression.all.filter(bare).map((group) => group[0]!.text);
  const others = expression.all.filter((group) => !bare(group));
  const bareWords: Dsl[] = words.length > 0 ? [wordsClause(words.join(' '), 'and', others.length > 0)] : [];
  const filter = others.map((group) => (group.length === 1 ? termClause(group[0]!) : { bool: { should: group.map(termClause), minimum_should_match: 1 } }));
  const mustNot = expression.none.map(termClause);
  if (!scored) return { must: [], filter: [...bareWords, ...filter], mustNot, should: [] };
  const otherWords = others.flat().map((term) => term.text);
  const should: Dsl[] = otherWords.length > 0 ? [wordsClause(otherWords.join(' '), 'or')] : [];
  const exact = exactTitleText(positiveText(expression));
  if (exact !== '') should.push({ constant_score: { filter: { match: { 'title.exact': exact } }, boost: EXACT_TITLE_BOOST } });
  return { must: bareWords, filter, mustNot, should };
}

/** An inclusive range of instants on a date field (a document without the field matches no range); undefined when both sides are open. */
function dateRange(field: string, min: Date | undefined, max: Date | undefined): Dsl | undefined {
  if (!min && !max) return undefined;
  return { range: { [field]: { ...(min ? { gte: min.toISOString() } : {}), ...(max ? { lte: max.toISOString() } : {}) } } };
}

/**
 * Where a story without an update (no date_updated) sorts by date_updated, in epoch milliseconds:
 * beyond either end of the real dates, so it comes last both ways, as in Postgres. Explicit
 * values rather than `_last`, whose stand-ins (the ends of a long) do not survive a round trip
 * through a JavaScript number in `search_after`.
 */
export const DATE_UPDATED_MISSING = { asc: Date.UTC(9999, 11, 31, 23, 59, 59, 999), desc: 0 } as const;

/** The filters of a list, in filter context (they do not score). */
function filterClauses(query: StoryListQuery): Dsl[] {
  const filter: Dsl[] = [];
  if (query.ids) filter.push({ terms: { id: query.ids } });
  if (query.authorIds !== undefined) filter.push({ terms: { author_id: query.authorIds } });
  if (query.status !== undefined) filter.push({ term: { status: query.status } });
  if (query.numWordsMin !== undefined || query.numWordsMax !== undefined) {
    filter.push({ range: { num_words: { ...(query.numWordsMin !== undefined ? { gte: query.numWordsMin } : {}), ...(query.numWordsMax !== undefined ? { lte: query.numWordsMax } : {}) } } });
  }
  const published = dateRange('date_published', query.datePublishedMin, query.datePublishedMax);
  if (published) filter.push(published);
  const updated = dateRange('date_updated', query.dateUpdatedMin, query.dateUpdatedMax);
  if (updated) filter.push(updated);
  for (const tag of query.tagIds ?? []) filter.push({ term: { tag_ids: tag } });
  if (query.contentRatings !== undefined) filter.push({ terms: { content_rating: query.contentRatings } });
  return filter;
}

/**
 * The exclusions of a list's filters (`-g:3` in filter[tags], and what the caller mutes or hides,
 * docs/api/safety.md): stories carrying any of those tags, or by any of those authors, are left out.
 */
function excludedClauses(query: StoryListQuery): Dsl[] {
  const excluded: Dsl[] = [];
  if (query.excludedTagIds !== undefined && query.excludedTagIds.length > 0) excluded.push({ terms: { tag_ids: query.excludedTagIds } });
  if (query.excludedAuthorIds !== undefined && query.excludedAuthorIds.length > 0) excluded.push({ terms: { author_id: query.excludedAuthorIds } });
  return excluded;
}

/**
 * The sort of a list, ties by id in the same direction; a story without votes sorts last both
 * ways by rating (the missing value stands in beyond either end of 0–100), and one without an
 * update by date_updated ({@link DATE_UPDATED_MISSING}).
 */
function sortClauses(query: StoryListQuery): Dsl[] {
  const { field, direction: order } = query.sort;
  const byId = { id: { order } };
  if (field === 'relevance') return [{ _score: { order } }, byId];
  if (field === 'rating') return [{ rating: { order, missing: order === 'asc' ? 101 : -1 } }, byId];
  // unmapped_type: an index of an older mapping (until the rebuild at start swaps it) sorts as if no story had one, rather than failing.
  if (field === 'date_updated') return [{ date_updated: { order, missing: DATE_UPDATED_MISSING[order], unmapped_type: 'date' } }, byId];
  if (field === 'date_added') throw new TypeError('date_added is a bookshelf order; the index has none');
  return [{ [field]: { order } }, byId];
}

/** The query of a list: its filters and text matching, and with `scored` the relevance score of its text. */
function listQuery(query: StoryListQuery, scored: boolean): Dsl {
  const bool: { must?: Dsl[]; filter: Dsl[]; must_not?: Dsl[]; should?: Dsl[]; minimum_should_match?: number } = { filter: filterClauses(query) };
  const excluded = excludedClauses(query);
  if (excluded.length > 0) bool.must_not = excluded;
  if (query.text !== undefined) {
    const text = textQuery(query.text, scored);
    if (text.must.length > 0) bool.must = text.must;
    bool.filter.push(...text.filter);
    if (text.mustNot.length > 0) bool.must_not = [...excluded, ...text.mustNot];
    // Without a scored conjunction, every story the filters let through holds a word of the
    // scoring clauses, so requiring one of them leaves the matches as they are and lets the
    // engine skip what cannot rank.
    if (text.should.length > 0) Object.assign(bool, { should: text.should }, text.must.length === 0 ? { minimum_should_match: 1 } : {});
  }
  return { bool };
}

/**
 * The body of the `_search` of one page of a published-story list: `limit + 1` hits (to tell
 * whether more follow) after the position `query.after` (the sort value and id of the last story
 * of the previous page, see `search_after`), each with its sort values (the last is the id) and
 * its stored document (what a list shows of the story), and the total counted up to
 * {@link STORY_LIST_EXACT_TOTAL_MAX}.
 */
export function storySearchBody(query: StoryListQuery): Dsl {
  return {
    query: listQuery(query, query.sort.field === 'relevance'),
    sort: sortClauses(query),
    size: query.limit + 1,
    // The page is answered from the stored documents themselves (docs/api/stories.md, "Search"),
    // sent as stored; the sort values end with the id, so no _id.
    _source: true,
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

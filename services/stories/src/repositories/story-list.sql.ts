import type { SortDirection, StorySortField } from '../domain/list.js';
import { parseSearchQuery, positiveText } from '../domain/search-query.js';
import type { StoryListQuery } from '../domain/story-query.js';

/** A parameterised SQL statement. */
export interface Statement {
  text: string;
  values: unknown[];
  /** When set, the database cancels the statement after this many milliseconds (a timeout error). */
  timeoutMs?: number;
}

/**
 * How long ranking a shelf's matches may take the database (docs/api/stories.md, "Search"): the
 * worst shelf (100,000 stories, a word in 72% of them) costs about 180 ms of one core, so only an
 * overloaded database reaches it; the list then answers 503 with Retry-After instead of running on.
 */
export const SHELF_RANKING_TIMEOUT_MS = 2000;

/** The sorts whose value is a column (or expression) of the story row. */
type ValueSortField = Exclude<StorySortField, 'relevance' | 'date_added'>;

/** The SQL type of each sort value, for casting a position's key back. */
const KEY_TYPES: Record<ValueSortField, string> = {
  date_published: 'timestamptz',
  hotness: 'float8',
  date_modified: 'timestamptz',
  rating: 'int',
  num_words: 'int',
  num_views: 'int',
  num_comments: 'int',
  num_likes: 'int',
  num_dislikes: 'int',
  date_updated: 'timestamptz',
};

/**
 * Weights of ts_rank_cd for the lexemes of the description (D), short description (C), tag names
 * (B) and title (A), the order `story_search_vector` (migration 0001) marks them in.
 */
const RANK_WEIGHTS = '{0.1, 0.2, 0.4, 1.0}';

/**
 * ts_rank_cd normalisation: divided by 1 + log(document length) (1), then mapped into [0, 1) by
 * rank / (rank + 1) (32), which keeps the order and leaves room above 1 for an exact title.
 */
const RANK_NORMALIZATION = 1 | 32;

/**
 * The SQL expression a story list sorts by. They match the expression indexes of migrations 0001
 * and 0010 exactly (the planner needs that): rating uses a direction-specific coalesce so stories
 * without votes come last both ways, and so does date_updated for stories without a published
 * chapter yet; date_published likewise, but only where drafts (never published, no date) can be
 * in the list.
 */
function sortExpression(field: ValueSortField, direction: SortDirection, draftsPossible: boolean): string {
  switch (field) {
    case 'rating':
      return direction === 'asc' ? 'coalesce(s.rating, 101)' : 'coalesce(s.rating, -1)';
    case 'date_updated':
      return direction === 'asc' ? "coalesce(s.date_updated, 'infinity'::timestamptz)" : "coalesce(s.date_updated, '-infinity'::timestamptz)";
    case 'date_published':
      if (!draftsPossible) return 's.date_published';
      return direction === 'asc' ? "coalesce(s.date_published, 'infinity'::timestamptz)" : "coalesce(s.date_published, '-infinity'::timestamptz)";
    default:
      return `s.${field}`;
  }
}

/** Collects parameters and hands out their placeholders. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The shelf of a list. */
type Shelf = NonNullable<StoryListQuery['bookshelf']>;

/** The condition of a publication state on the rows `on` (`s`: stories; `m`: shelf items, which carry a copy of it). */
function publicationCondition(query: StoryListQuery, on: 's' | 'm'): string[] {
  // A hidden story is unpublished too (migration 0014): the author's drafts must leave it out.
  const notHidden = on === 's' ? [`${on}.hidden_at IS NULL`] : [];
  if (query.publication === 'published') return [`${on}.published`];
  if (query.publication === 'drafts') return [`NOT ${on}.published`, ...notHidden];
  return notHidden;
}

/**
 * Up to how many qualifying stories a value-sorted list of a shelf or an author reads them all and
 * sorts them rather than walking a sort index: near the square root of (page size × published
 * stories) at a million stories, where the two plans cost about the same.
 */
const FEW_MATCHES = 5000;

/** The filters of a list that only lists of a bookshelf apply (the others come from the search index). */
const SHELF_ONLY_FILTERS = [
  'ids', 'numWordsMin', 'numWordsMax', 'status', 'datePublishedMin', 'datePublishedMax', 'dateUpdatedMin', 'dateUpdatedMax', 'tagIds', 'excludedTagIds', 'excludedAuthorIds', 'contentRatings', 'text',
] as const;

/**
 * The conditions on the items `m` of the list's shelf: the shelf's current (and, if asked, unread)
 * items whose copy of their story's columns (migrations 0006, 0010, 0013) passes every filter of the list
 * (docs/api/stories.md, "Bookshelves in story lists"). Stated on the copy, they let the planner
 * start from the shelf's GIN index of words and tags, whatever the sort.
 */
function shelfConditions(query: StoryListQuery, shelf: Shelf, params: Params): string[] {
  const where = [`m.bookshelf_id = ${params.add(shelf.id)}::bigint`, 'm.current', ...(shelf.unreadOnly ? ['NOT m.read'] : []), ...publicationCondition(query, 'm')];
  if (query.ids) where.push(`m.story_id = ANY(${params.add(query.ids)}::bigint[])`);
  if (query.authorIds !== undefined) where.push(`m.author_id = ANY(${params.add(query.authorIds)}::bigint[])`);
  if (query.numWordsMin !== undefined) where.push(`m.num_words >= ${params.add(query.numWordsMin)}::int`);
  if (query.numWordsMax !== undefined) where.push(`m.num_words <= ${params.add(query.numWordsMax)}::int`);
  if (query.status !== undefined) where.push(`m.status = ${params.add(query.status)}`);
  if (query.datePublishedMin) where.push(`m.date_published >= ${params.add(query.datePublishedMin)}::timestamptz`);
  if (query.datePublishedMax) where.push(`m.date_published <= ${params.add(query.datePublishedMax)}::timestamptz`);
  if (query.dateUpdatedMin) where.push(`m.date_updated >= ${params.add(query.dateUpdatedMin)}::timestamptz`);
  if (query.dateUpdatedMax) where.push(`m.date_updated <= ${params.add(query.dateUpdatedMax)}::timestamptz`);
  if (query.tagIds && query.tagIds.length > 0) where.push(`m.tag_ids @> ${params.add(query.tagIds)}::text[]`);
  if (query.excludedTagIds && query.excludedTagIds.length > 0) where.push(`NOT (m.tag_ids && ${params.add(query.excludedTagIds)}::text[])`);
  if (query.excludedAuthorIds && query.excludedAuthorIds.length > 0) where.push(`m.author_id <> ALL (${params.add(query.excludedAuthorIds)}::bigint[])`);
  if (query.contentRatings && query.contentRatings.length > 0) where.push(`m.content_rating = ANY(${params.add(query.contentRatings)}::text[])`);
  if (query.text !== undefined) where.push(`m.search_vector @@ websearch_to_tsquery('english', ${params.add(query.text)})`);
  return where;
}

/**
 * The relevance of a shelf item's story to `text` (docs/api/stories.md, "Search", on shelf
 * lists): ts_rank_cd with field weights, in [0, 1), plus 1 when the title is the
 * query's positive words (the same lexemes at the same positions once analysed), so an exact title
 * ranks above every other match. Read from the copy's search vector, whose A-weighted lexemes are
 * the title's.
 */
function rankExpression(text: string, params: Params): string {
  const rank = `ts_rank_cd('${RANK_WEIGHTS}', m.search_vector, websearch_to_tsquery('english', ${params.add(text)}), ${RANK_NORMALIZATION})`;
  const title = positiveText(parseSearchQuery(text));
  if (title === '') return `${rank}::real`;
  return `(${rank} + CASE WHEN ts_filter(m.search_vector, '{a}') = setweight(to_tsvector('english', ${params.add(title)}), 'A') THEN 1 ELSE 0 END)::real`;
}

/**
 * The statement selecting one keyset page of story ids (`id`; `sort_key`, the sort value as text,
 * and `tie_id`, the id that breaks ties, for the next position), `limit + 1` rows so the caller
 * can tell whether more follow. Two kinds of list are answered from Postgres (docs/api/stories.md,
 * "Search"): a bookshelf's stories, filtered on the shelf copy, under every sort; and an author's
 * stories (GET /users/:id/stories, drafts included) under the value sorts. Other filters without a
 * bookshelf, `relevance` and `date_added` without one, are a TypeError: those lists are answered
 * from the search index.
 *
 * - `date_added` walks the shelf's current items by (date_added, item id) — one story has one
 *   current item per shelf — checking the filters in the walk's index, or, for a word or rare
 *   tags, starting from the shelf's GIN index.
 * - `relevance` ranks every match on the shelf, found through the shelf's GIN index (at most the
 *   shelf's 100,000 items), by {@link rankExpression}; pages walk that ranking by (rank, story id).
 * - The value sorts read the few qualifying stories and sort them, or walk the stories' sort index
 *   (migration 0001), by `qualifying` (see {@link qualifyingCountStatement}).
 */
export function storyPageStatement(query: StoryListQuery, qualifying?: number): Statement {
  const { field } = query.sort;
  const shelf = query.bookshelf;
  if (!shelf) {
    const needsShelf = SHELF_ONLY_FILTERS.filter((name) => query[name] !== undefined);
    if (field === 'relevance' || field === 'date_added' || needsShelf.length > 0) {
      throw new TypeError(`sort ${field} with ${needsShelf.join(', ') || 'no filter'} needs a bookshelf: such lists come from the search index`);
    }
    return valueSortStatement(query, field, new Params(), undefined, qualifying);
  }
  const params = new Params();
  if (field === 'relevance') return shelfRelevanceStatement(query, shelf, params);
  if (field === 'date_added') return shelfDateAddedStatement(query, shelf, params);
  return valueSortStatement(query, field, params, shelf, qualifying);
}

/** The keyset comparison and ORDER BY keyword of a direction. */
function directionOf(query: StoryListQuery): { comparison: '<' | '>'; order: 'ASC' | 'DESC' } {
  return query.sort.direction === 'asc' ? { comparison: '>', order: 'ASC' } : { comparison: '<', order: 'DESC' };
}

function shelfRelevanceStatement(query: StoryListQuery, shelf: Shelf, params: Params): Statement {
  if (query.text === undefined) throw new TypeError('relevance needs a text query');
  const { comparison, order } = directionOf(query);
  const where = shelfConditions(query, shelf, params);
  const rank = rankExpression(query.text, params);
  const after = query.after ? `WHERE (r.rank, r.story_id) ${comparison} (${params.add(query.after.key)}::real, ${params.add(query.after.id)}::bigint)` : '';
  return {
    text: `SELECT r.story_id::text AS id, r.rank::text AS sort_key, r.story_id::text AS tie_id
      FROM (SELECT m.story_id, ${rank} AS rank FROM bookshelf_items m WHERE ${where.join(' AND ')}) r
      ${after}
      ORDER BY r.rank ${order}, r.story_id ${order}
      LIMIT ${query.limit + 1}`,
    values: params.values,
    timeoutMs: SHELF_RANKING_TIMEOUT_MS,
  };
}

function shelfDateAddedStatement(query: StoryListQuery, shelf: Shelf, params: Params): Statement {
  const { comparison, order } = directionOf(query);
  const where = shelfConditions(query, shelf, params);
  if (query.after) {
    where.push(`(m.date_added, m.id) ${comparison} (${params.add(query.after.key)}::timestamptz, ${params.add(query.after.id)}::bigint)`);
  }
  return {
    text: `SELECT m.story_id::text AS id, m.date_added::text AS sort_key, m.id::text AS tie_id
      FROM bookshelf_items m
      WHERE ${where.join(' AND ')}
      ORDER BY m.date_added ${order}, m.id ${order}
      LIMIT ${query.limit + 1}`,
    values: params.values,
  };
}

/**
 * For a value-sorted list of a shelf or of an author, the statement counting the rows that qualify
 * (the shelf's items passing every filter; the author's stories) up to one more than
 * {@link FEW_MATCHES}, as `n`: its answer chooses the plan of {@link storyPageStatement}.
 * Undefined for every other list. Bounded by the count.
 */
export function qualifyingCountStatement(query: StoryListQuery): Statement | undefined {
  const shelf = query.bookshelf;
  if (query.sort.field === 'relevance' || query.sort.field === 'date_added') return undefined;
  const params = new Params();
  let rows: string;
  if (shelf) rows = `SELECT 1 FROM bookshelf_items m WHERE ${shelfConditions(query, shelf, params).join(' AND ')}`;
  else if (query.authorIds !== undefined) rows = `SELECT 1 FROM stories s WHERE ${[...publicationCondition(query, 's'), authorCondition(query.authorIds, params)].join(' AND ')}`;
  else return undefined;
  return { text: `SELECT count(*)::int AS n FROM (${rows} LIMIT ${FEW_MATCHES + 1}) q`, values: params.values };
}

/**
 * A value-sorted list of an author's stories, or of a shelf's. It takes the cheaper of two plans,
 * each bounded, by how many rows qualify (`qualifying`, from {@link qualifyingCountStatement}): up
 * to {@link FEW_MATCHES}, those stories are read (by the author index, or by id from the shelf's
 * items) and sorted; more (or unknown), the stories' sort index is walked, checking the author or
 * probing each story's item of the shelf, which finds a page within about `page size × published
 * stories / qualifying rows` stories when those are spread through the sort order.
 */
function valueSortStatement(query: StoryListQuery, field: ValueSortField, params: Params, shelf?: Shelf, qualifying?: number): Statement {
  const { comparison, order } = directionOf(query);
  const where = publicationCondition(query, 's');
  const expression = sortExpression(field, query.sort.direction, query.publication !== 'published');
  const few = qualifying !== undefined && qualifying <= FEW_MATCHES;
  if (shelf) {
    const items = shelfConditions(query, shelf, params).join(' AND ');
    where.push(few ? `s.id IN (SELECT m.story_id FROM bookshelf_items m WHERE ${items})` : `EXISTS (SELECT 1 FROM bookshelf_items m WHERE ${items} AND m.story_id = s.id)`);
  } else if (query.authorIds !== undefined) where.push(authorCondition(query.authorIds, params));
  if (query.after) {
    where.push(`(${expression}, s.id) ${comparison} (${params.add(query.after.key)}::${KEY_TYPES[field]}, ${params.add(query.after.id)}::bigint)`);
  }
  const conditions = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  if (few) {
    // OFFSET 0 plans the few stories on their own, without the page's order: read, then sorted,
    // rather than a walk the planner might expect to meet them early in.
    return {
      text: `SELECT f.id::text AS id, f.sort_value::text AS sort_key, f.id::text AS tie_id
        FROM (SELECT s.id, ${expression} AS sort_value FROM stories s ${conditions} OFFSET 0) f
        ORDER BY f.sort_value ${order}, f.id ${order}
        LIMIT ${query.limit + 1}`,
      values: params.values,
    };
  }
  return {
    text: `SELECT s.id::text AS id, (${expression})::text AS sort_key, s.id::text AS tie_id FROM stories s ${conditions}
      ORDER BY ${expression} ${order}, s.id ${order}
      LIMIT ${query.limit + 1}`,
    values: params.values,
  };
}

/**
 * The author condition on `s`: `=` for one author (the author index's plan of an author's own
 * list), `= ANY` for several.
 */
function authorCondition(authorIds: readonly string[], params: Params): string {
  return authorIds.length === 1 ? `s.author_id = ${params.add(authorIds[0])}::bigint` : `s.author_id = ANY(${params.add(authorIds)}::bigint[])`;
}

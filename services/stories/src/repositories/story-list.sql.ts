import type { SortDirection, StorySortField } from '../domain/list.js';
import { SEARCH_CANDIDATES, SEARCH_TIERS, type StoryListQuery } from '../domain/story-query.js';

/** A parameterised SQL statement. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** The SQL type of each sort value, for casting a position's key back. */
const KEY_TYPES: Record<Exclude<StorySortField, 'relevance' | 'date_added'>, string> = {
  date_published: 'timestamptz',
  hotness: 'float8',
  date_modified: 'timestamptz',
  rating: 'int',
  num_words: 'int',
  num_views: 'int',
  num_comments: 'int',
  num_likes: 'int',
  num_dislikes: 'int',
};

/**
 * The SQL expression a story list sorts by. They match the expression indexes of migration 0001
 * exactly (the planner needs that): rating uses a direction-specific coalesce so stories without
 * votes come last both ways; date_published likewise, but only where drafts (never published, no
 * date) can be in the list.
 */
function sortExpression(field: Exclude<StorySortField, 'relevance' | 'date_added'>, direction: SortDirection, draftsPossible: boolean): string {
  switch (field) {
    case 'rating':
      return direction === 'asc' ? 'coalesce(s.rating, 101)' : 'coalesce(s.rating, -1)';
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

/**
 * Where the filtered columns live: the story itself (`s`), or the copy of them a shelf item
 * carries (`m`, migration 0006), which lets a walk of a shelf skip items without reading stories.
 */
type FilterSource = 's' | 'm';

function filterConditions(query: StoryListQuery, params: Params, on: FilterSource = 's'): string[] {
  const where: string[] = [];
  const id = on === 's' ? 's.id' : 'm.story_id';
  if (query.publication === 'published') where.push(`${on}.published`);
  if (query.publication === 'drafts') where.push(`NOT ${on}.published`);
  if (query.ids) where.push(`${id} = ANY(${params.add(query.ids)}::bigint[])`);
  if (query.authorId !== undefined) where.push(`${on}.author_id = ${params.add(query.authorId)}::bigint`);
  if (query.numWordsMin !== undefined) where.push(`${on}.num_words >= ${params.add(query.numWordsMin)}::int`);
  if (query.numWordsMax !== undefined) where.push(`${on}.num_words <= ${params.add(query.numWordsMax)}::int`);
  if (query.status !== undefined) where.push(`${on}.status = ${params.add(query.status)}`);
  if (query.datePublishedMin) where.push(`${on}.date_published >= ${params.add(query.datePublishedMin)}::timestamptz`);
  if (query.datePublishedMax) where.push(`${on}.date_published <= ${params.add(query.datePublishedMax)}::timestamptz`);
  if (query.tagIds && query.tagIds.length > 0) where.push(`${on}.tag_ids @> ${params.add(query.tagIds)}::text[]`);
  if (query.text !== undefined) where.push(`${on}.search_vector @@ websearch_to_tsquery('english', ${params.add(query.text)})`);
  // Sorted by date_added the list walks the shelf itself (see storyPageStatement); otherwise
  // membership is one index probe per story, so the planner may start from either side.
  if (query.bookshelf && query.sort.field !== 'date_added') {
    where.push(`EXISTS (SELECT 1 FROM bookshelf_items m WHERE ${shelfConditions(query.bookshelf, params).join(' AND ')} AND m.story_id = s.id)`);
  }
  return where;
}

/** The conditions on the current items `m` of a shelf (docs/api/stories.md, "Bookshelves in story lists"). */
function shelfConditions(shelf: NonNullable<StoryListQuery['bookshelf']>, params: Params): string[] {
  return [`m.bookshelf_id = ${params.add(shelf.id)}::bigint`, 'm.current', ...(shelf.unreadOnly ? ['NOT m.read'] : [])];
}

/**
 * The statement selecting one keyset page of story ids (`id`; `sort_key`, the sort value as text,
 * and `tie_id`, the id that breaks ties, for the next position), `limit + 1` rows so the caller
 * can tell whether more follow.
 *
 * `date_added` walks the shelf's current items by (date_added, item id) — one story has one
 * current item per shelf — filtering on the items' copy of their story's columns, which the walk's
 * index carries (or, for a word or rare tags, from the shelf's GIN index); only the page's items
 * are joined to their stories.
 *
 * Relevance is bounded re-ranking: up to SEARCH_CANDIDATES matches are collected tier by tier
 * (`search_tier`, most-viewed stories first; within a tier in storage order), each tier from its
 * partial full-text index and stopping as soon as enough are found, so the work is bounded by
 * the candidate count however common the words are. The candidates are ranked by ts_rank_cd with
 * field weights (title 1.0, tag names 0.4, short description 0.2, description 0.1; divided by
 * 1 + log(document length)); pages walk that ranking by (rank, id).
 */
export function storyPageStatement(query: StoryListQuery): Statement {
  const params = new Params();
  const where = filterConditions(query, params, query.sort.field === 'date_added' ? 'm' : 's');
  const { field, direction } = query.sort;
  const comparison = direction === 'asc' ? '>' : '<';
  const order = direction === 'asc' ? 'ASC' : 'DESC';
  const limit = query.limit + 1;

  if (field === 'relevance') {
    if (query.text === undefined) throw new TypeError('relevance needs a text query');
    const tsquery = `websearch_to_tsquery('english', ${params.add(query.text)})`;
    const tiers = Array.from(
      { length: SEARCH_TIERS },
      (_, tier) => `(SELECT s.id, s.search_vector FROM stories s WHERE ${[...where, `search_tier(s.num_views) = ${tier}`].join(' AND ')} LIMIT ${SEARCH_CANDIDATES})`,
    );
    const after = query.after ? `WHERE (r.rank, r.id) ${comparison} (${params.add(query.after.key)}::real, ${params.add(query.after.id)}::bigint)` : '';
    return {
      text: `WITH candidates AS MATERIALIZED (
          ${tiers.join('\n          UNION ALL\n          ')}
          LIMIT ${SEARCH_CANDIDATES}
        ), ranked AS (
          SELECT c.id, ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', c.search_vector, ${tsquery}, 1)::real AS rank FROM candidates c
        )
        SELECT r.id::text AS id, r.rank::text AS sort_key, r.id::text AS tie_id FROM ranked r ${after}
        ORDER BY r.rank ${order}, r.id ${order}
        LIMIT ${limit}`,
      values: params.values,
    };
  }
  if (field === 'date_added') {
    if (!query.bookshelf) throw new TypeError('date_added needs a bookshelf');
    where.unshift(...shelfConditions(query.bookshelf, params));
    if (query.after) {
      where.push(`(m.date_added, m.id) ${comparison} (${params.add(query.after.key)}::timestamptz, ${params.add(query.after.id)}::bigint)`);
    }
    return {
      text: `SELECT s.id::text AS id, m.date_added::text AS sort_key, m.id::text AS tie_id
        FROM bookshelf_items m JOIN stories s ON s.id = m.story_id
        WHERE ${where.join(' AND ')}
        ORDER BY m.date_added ${order}, m.id ${order}
        LIMIT ${limit}`,
      values: params.values,
    };
  }

  const expression = sortExpression(field, direction, query.publication !== 'published');
  if (query.after) {
    where.push(`(${expression}, s.id) ${comparison} (${params.add(query.after.key)}::${KEY_TYPES[field]}, ${params.add(query.after.id)}::bigint)`);
  }
  return {
    text: `SELECT s.id::text AS id, (${expression})::text AS sort_key, s.id::text AS tie_id FROM stories s
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${expression} ${order}, s.id ${order}
      LIMIT ${limit}`,
    values: params.values,
  };
}

import type { StoryCounterColumns } from '../repositories/story.rows.js';

/**
 * The OpenSearch index of published stories that GET /stories searches (docs/api/stories.md,
 * "Search"): its settings and its explicit mapping. A change here ships by `npm run
 * search:rebuild`, which builds a new concrete index beside the old one and swaps the alias.
 */

/** Per-deployment settings of a new index (STORY_INDEX_* variables, see config.ts). */
export interface StoryIndexSettings {
  shards: number;
  replicas: number;
  /** e.g. `500ms`: how soon a write is searchable. */
  refreshInterval: string;
}

/**
 * How long the index remembers the version of a deleted document. A rebuild's bulk load writes
 * what it read from Postgres, possibly before a story was unpublished or deleted; the delete's
 * tombstone (with its higher version) must outlive the load so that the older document is
 * refused rather than brought back. The load of a million stories takes a few minutes.
 */
export const GC_DELETES = '1h';

/**
 * The version of the mapping below, kept in the index's `_meta`: a service that finds the index
 * lists read at an older version rebuilds it at start (docs/api/stories.md, "Search", Rebuild).
 * Raise it with every change of the fields or their analysis. 2: one weighted search text.
 * 3: date_updated. 4: content_rating.
 */
export const STORY_INDEX_MAPPING_VERSION = 4;

/**
 * The oldest mapping version among the indices of a `GET <index or alias>/_mapping` answer (1
 * for an index from before versions were kept); undefined when it names no index.
 */
export function oldestMappingVersion(mappings: unknown): number | undefined {
  if (typeof mappings !== 'object' || mappings === null) return undefined;
  const versions = Object.values(mappings as Record<string, { mappings?: { _meta?: { mapping_version?: unknown } } }>).map((index) => {
    const version = index.mappings?._meta?.mapping_version;
    return typeof version === 'number' ? version : 1;
  });
  return versions.length === 0 ? undefined : Math.min(...versions);
}

/** The normaliser of `title.exact`: a whole title, lower-cased and without accents. */
const EXACT_TITLE_NORMALIZER = 'story_exact_title';

/** Kept in the document for reading it, not searched: {@link SEARCH_TEXT_FIELD} holds the words. */
const unsearched = { type: 'text', index: false } as const;
const integer = { type: 'integer' } as const;

/** The body of `PUT <index>`: settings, analysis and the mapping of {@link StoryDocument}. */
export function storyIndexBody(settings: StoryIndexSettings): Record<string, unknown> {
  return {
    settings: {
      index: {
        number_of_shards: settings.shards,
        number_of_replicas: settings.replicas,
        refresh_interval: settings.refreshInterval,
        gc_deletes: GC_DELETES,
      },
      analysis: {
        normalizer: { [EXACT_TITLE_NORMALIZER]: { type: 'custom', filter: ['lowercase', 'asciifolding', 'trim'] } },
      },
    },
    mappings: {
      dynamic: 'strict',
      _meta: { mapping_version: STORY_INDEX_MAPPING_VERSION },
      // The weighted text only repeats the document's own fields: searched, never read back.
      _source: { excludes: [SEARCH_TEXT_FIELD] },
      properties: {
        id: { type: 'long' },
        author_id: { type: 'long' },
        status: { type: 'keyword' },
        content_rating: { type: 'keyword' },
        tag_ids: { type: 'keyword' },
        tag_names: unsearched,
        title: { ...unsearched, fields: { exact: { type: 'keyword', normalizer: EXACT_TITLE_NORMALIZER, ignore_above: 256 } } },
        short_description: unsearched,
        description: unsearched,
        // English analysis: lower case, stop words dropped, stemmed. Values stay 100 positions
        // apart (the default gap), so a phrase never spans two of them.
        [SEARCH_TEXT_FIELD]: { type: 'text', analyzer: 'english' },
        num_words: integer,
        num_views: integer,
        num_likes: integer,
        num_dislikes: integer,
        num_comments: integer,
        rating: integer,
        hotness: { type: 'double' },
        date_published: { type: 'date' },
        date_modified: { type: 'date' },
        date_updated: { type: 'date' },
      },
    },
  };
}

/** One published story as the index holds it (its `_id` is the story id, its version the row's index_version). */
export interface StoryDocument extends StoryCounterColumns {
  id: string;
  author_id: string;
  status: string;
  /** everyone, teen or mature: filter[content_rating]. */
  content_rating: string;
  tag_ids: string[];
  tag_names: string[];
  title: string;
  short_description: string;
  /** The first DESCRIPTION_INDEXED_CHARS characters of the description. */
  description: string;
  /** null without votes: sorts last both ways. */
  rating: number | null;
  date_published: string;
  date_modified: string;
  /** When a chapter was last published; null (no value) before the first: sorts last both ways. */
  date_updated: string | null;
  /** {@link searchText} of the fields above. */
  search_text: string[];
}

/** How much of a description is searched: enough to find a story by what it is about, and it keeps documents small. */
export const DESCRIPTION_INDEXED_CHARS = 4000;

/** The one field a `query` matches and scores (docs/api/stories.md, "Search"). */
export const SEARCH_TEXT_FIELD = 'search_text';

/**
 * How often each field of a story appears in its {@link SEARCH_TEXT_FIELD}: its weight in a
 * `query`'s relevance (docs/api/stories.md, "Search"). A word of the title counts four times, one
 * of a tag name three times, and so on, in one BM25 score over the whole weighted text.
 */
export const SEARCH_TEXT_WEIGHTS = { title: 4, tag_names: 3, short_description: 2, description: 1 } as const;

/** The searched text of a story: each of its fields repeated by its weight, each value on its own. */
export function searchText(fields: Pick<StoryDocument, keyof typeof SEARCH_TEXT_WEIGHTS>): string[] {
  const values: string[] = [];
  for (const [field, weight] of Object.entries(SEARCH_TEXT_WEIGHTS) as Array<[keyof typeof SEARCH_TEXT_WEIGHTS, number]>) {
    for (const value of [fields[field]].flat()) {
      if (value !== '') for (let copy = 0; copy < weight; copy++) values.push(value);
    }
  }
  return values;
}

/** The score a story whose whole title equals the query gets on top of its text score. */
export const EXACT_TITLE_BOOST = 100;

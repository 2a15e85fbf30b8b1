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

/** The normaliser of `title.exact`: a whole title, lower-cased and without accents. */
const EXACT_TITLE_NORMALIZER = 'story_exact_title';

const english = { type: 'text', analyzer: 'english' } as const;
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
      properties: {
        id: { type: 'long' },
        author_id: { type: 'long' },
        status: { type: 'keyword' },
        tag_ids: { type: 'keyword' },
        tag_names: english,
        title: { ...english, fields: { exact: { type: 'keyword', normalizer: EXACT_TITLE_NORMALIZER, ignore_above: 256 } } },
        short_description: english,
        description: english,
        num_words: integer,
        num_views: integer,
        num_likes: integer,
        num_dislikes: integer,
        num_comments: integer,
        rating: integer,
        hotness: { type: 'double' },
        date_published: { type: 'date' },
        date_modified: { type: 'date' },
      },
    },
  };
}

/** One published story as the index holds it (its `_id` is the story id, its version the row's index_version). */
export interface StoryDocument {
  id: string;
  author_id: string;
  status: string;
  tag_ids: string[];
  tag_names: string[];
  title: string;
  short_description: string;
  /** The first DESCRIPTION_INDEXED_CHARS characters of the description. */
  description: string;
  num_words: number;
  num_views: number;
  num_likes: number;
  num_dislikes: number;
  num_comments: number;
  /** null without votes: sorts last both ways. */
  rating: number | null;
  hotness: number;
  date_published: string;
  date_modified: string;
}

/** How much of a description is searched: enough to find a story by what it is about, and it keeps documents small. */
export const DESCRIPTION_INDEXED_CHARS = 4000;

/** The field weights of a `query` (docs/api/stories.md, "Search"). */
export const SEARCH_FIELDS = ['title^4', 'tag_names^3', 'short_description^2', 'description^1'] as const;

/** The score a story whose whole title equals the query gets on top of its text score. */
export const EXACT_TITLE_BOOST = 100;

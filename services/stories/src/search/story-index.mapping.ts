import { DEFAULT_STORY_SORT } from '../domain/list.js';
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
 * 3: date_updated. 4: content_rating. 5: accents folded in the words, punctuation ignored by
 * the exact title, the fields lists show that the index did not hold ({@link ListedFields}), and
 * the search-only fields left out of the stored document ({@link SEARCH_ONLY_FIELDS}). 6: the
 * index sorted in the default list order ({@link INDEX_SORT}).
 */
export const STORY_INDEX_MAPPING_VERSION = 6;

/**
 * The order the index keeps its documents in: the default list order (newest published first,
 * ties by id, docs/api/stories.md, "Search"). A list in that order stops reading the index once
 * its page is full instead of ranking every match, and a page's stories lie next to each other,
 * so fetching their stored documents reads one block rather than one per story (on 1,000,000
 * stories the engine's CPU per browse page halved, measured). Other orders are as fast as before.
 */
const INDEX_SORT = { field: [DEFAULT_STORY_SORT.field, 'id'], order: [DEFAULT_STORY_SORT.direction, DEFAULT_STORY_SORT.direction] };

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

/**
 * The normaliser of `title.exact`: a whole title read the way the words are (docs/api/stories.md,
 * "Search"): apostrophes dropped, any other run of characters that are not letters or digits one
 * space ({@link exactTitleText} does the same to a query), lower-cased, accents folded, trimmed.
 */
const EXACT_TITLE_NORMALIZER = 'story_exact_title';

/** The analyser of {@link SEARCH_TEXT_FIELD}: OpenSearch's `english` with accents folded, so `bronte` finds `Brontë`. */
const SEARCH_TEXT_ANALYZER = 'story_english';

/** The patterns of the normaliser's character filters (the same source in Java's syntax): apostrophes, and runs of anything but letters, marks and digits. */
const APOSTROPHES = /['\u2019]/gu;
const NOT_WORD_CHARACTERS = /[^\p{L}\p{M}\p{N}]+/gu;

/**
 * A whole title or query as `title.exact` compares them, before case and accents (which the
 * normaliser folds on both sides): apostrophes dropped (`Heart's` is `Hearts`), every other run
 * of punctuation, symbols and spaces one space, trimmed. '' when nothing of it can be searched.
 */
export function exactTitleText(text: string): string {
  return text.replace(APOSTROPHES, '').replace(NOT_WORD_CHARACTERS, ' ').trim();
}

/** Input of {@link SEARCH_TEXT_FIELD}, which holds their words: neither searched nor kept in the stored document. */
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
        sort: INDEX_SORT,
      },
      analysis: {
        char_filter: {
          story_apostrophes: { type: 'pattern_replace', pattern: APOSTROPHES.source, replacement: '' },
          story_not_word_characters: { type: 'pattern_replace', pattern: NOT_WORD_CHARACTERS.source, replacement: ' ' },
        },
        filter: {
          story_english_possessive: { type: 'stemmer', language: 'possessive_english' },
          story_english_stop: { type: 'stop', stopwords: '_english_' },
          story_english_stemmer: { type: 'stemmer', language: 'english' },
        },
        analyzer: {
          // The filters of the built-in `english` analyser, with asciifolding after lower-casing.
          [SEARCH_TEXT_ANALYZER]: { type: 'custom', tokenizer: 'standard', filter: ['story_english_possessive', 'lowercase', 'asciifolding', 'story_english_stop', 'story_english_stemmer'] },
        },
        normalizer: {
          [EXACT_TITLE_NORMALIZER]: { type: 'custom', char_filter: ['story_apostrophes', 'story_not_word_characters'], filter: ['lowercase', 'asciifolding', 'trim'] },
        },
      },
    },
    mappings: {
      dynamic: 'strict',
      _meta: { mapping_version: STORY_INDEX_MAPPING_VERSION },
      // What only the search reads is left out of the stored document, which lists read whole.
      _source: { excludes: [...SEARCH_ONLY_FIELDS] },
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
        // English analysis: lower case, accents folded, stop words dropped, stemmed. Values stay
        // 100 positions apart (the default gap), so a phrase never spans two of them.
        [SEARCH_TEXT_FIELD]: { type: 'text', analyzer: SEARCH_TEXT_ANALYZER },
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
        // Only read back (lists answer from the document): kept in _source, not parsed into fields.
        listed: { type: 'object', enabled: false },
      },
    },
  };
}

/**
 * The most bytes (UTF-8) of a story's description and its HTML together that its document
 * carries for lists: a page of 100 such stories stays under a list page's byte budget's order
 * of magnitude, and the node never sends megabytes for one page. A story with more is read from
 * Postgres when it is listed (docs/api/stories.md, "Search").
 */
export const LISTED_TEXT_MAX_BYTES = 16 * 1024;

/** What a list shows of a story beyond the indexed fields: read back from the document, never searched. */
export interface ListedFields {
  /** Published chapters. */
  num_chapters: number;
  /** The published chapters' ids in chapter order. */
  chapter_ids: string[];
  /** UTF-8 bytes of the description and its HTML: the story's share of a page's byte budget. */
  text_bytes: number;
  /** The whole description and its HTML, when text_bytes is at most {@link LISTED_TEXT_MAX_BYTES}. */
  description?: string;
  description_html?: string;
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
  listed: ListedFields;
  /** {@link searchText} of the fields above. */
  search_text: string[];
}

/** How much of a description is searched: enough to find a story by what it is about, and it keeps documents small. */
export const DESCRIPTION_INDEXED_CHARS = 4000;

/** The one field a `query` matches and scores (docs/api/stories.md, "Search"). */
export const SEARCH_TEXT_FIELD = 'search_text';

/**
 * The fields of a document only the search reads: the weighted text and what it repeats that a
 * list does not show (tag names, the searched start of the description). They are left out of
 * the stored document, so a list page reads the stored document whole, without the node
 * filtering it (cheaper than `_source` includes, which parse every document).
 */
export const SEARCH_ONLY_FIELDS = [SEARCH_TEXT_FIELD, 'tag_names', 'description'] as const;

/** A document as the index stores it and a list page reads it: everything a listed story shows. */
export type ListedDocument = Omit<StoryDocument, (typeof SEARCH_ONLY_FIELDS)[number]>;

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

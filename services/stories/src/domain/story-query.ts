import type { Sort } from './list.js';
import type { StoryStatus } from './story.js';

/**
 * How many matches of a full-text query are ranked by relevance: the candidates with the most
 * views, see docs/api/stories.md ("Search"). Beyond them a relevance-sorted list ends.
 */
export const SEARCH_CANDIDATES = 1000;

/** Which stories a list may contain by publication state. */
export type Publication = 'published' | 'drafts' | 'all';

/** A validated story list request, as services hand it to the repository. Filters combine with AND. */
export interface StoryListQuery {
  publication: Publication;
  ids?: string[];
  authorId?: string;
  /** Inclusive. */
  numWordsMin?: number;
  numWordsMax?: number;
  status?: StoryStatus;
  /** Inclusive instants. */
  datePublishedMin?: Date;
  datePublishedMax?: Date;
  /** All of them. */
  tagIds?: string[];
  /** Full-text query in web-search syntax (words, "phrases", or, -not). */
  text?: string;
  sort: Sort;
  /** Rows to return (the page size; the repository looks one further to know if more exist). */
  limit: number;
  /** Start after this position of the same sort. */
  after?: { key: string | null; id: string };
}

/** One page of ids in list order, and where the last one stands (for the next page). */
export interface IdPage {
  ids: string[];
  /** Present when more rows follow. */
  next?: { key: string | null; id: string };
}

import type { Sort } from './list.js';
import type { ContentRating, Story, StoryStatus } from './story.js';

/** Which stories a list may contain by publication state. */
export type Publication = 'published' | 'drafts' | 'all';

/** A validated story list request, as services hand it to the repository. Filters combine with AND. */
export interface StoryListQuery {
  publication: Publication;
  ids?: string[];
  /** Stories by any of these authors. */
  authorIds?: string[];
  /** Inclusive. */
  numWordsMin?: number;
  numWordsMax?: number;
  status?: StoryStatus;
  /** Inclusive instants. */
  datePublishedMin?: Date;
  datePublishedMax?: Date;
  /** Inclusive instants of the last chapter publication; a story without one matches neither side. */
  dateUpdatedMin?: Date;
  dateUpdatedMax?: Date;
  /** All of them. */
  tagIds?: string[];
  /** None of them (docs/api/stories.md, "GET /stories": `-g:3` in filter[tags]; and the tags the caller mutes, docs/api/safety.md). */
  excludedTagIds?: string[];
  /** By none of these authors: those the caller mutes, and with filter[hide_blocked] those they block (docs/api/safety.md). */
  excludedAuthorIds?: string[];
  /** Any of them. */
  contentRatings?: ContentRating[];
  /** Full-text query in web-search syntax (words, "phrases", or, -not). */
  text?: string;
  /**
   * Stories on this shelf of the service's copy of shelf membership (visibility already checked
   * by the service); `unreadOnly` keeps its unread items only. Sort `date_added` needs it.
   */
  bookshelf?: { id: string; unreadOnly: boolean };
  sort: Sort;
  /** Rows to return (the page size; the repository looks one further to know if more exist). */
  limit: number;
  /**
   * Start after this position of the same sort: the sort value as text and the id that breaks
   * ties (the story id; the item id for `date_added`).
   */
  after?: { key: string | null; id: string };
}

/** A place in a list: the sort value as text and the id that breaks ties. */
export interface ListPosition {
  key: string | null;
  id: string;
}

/** One page of story ids in list order, and where the last one stands (for the next page). */
export interface IdPage {
  ids: string[];
  /** Where each of `ids` stands, in the same order: a page cut short by its byte budget continues after one of them. */
  positions: ListPosition[];
  /** Present when more rows follow. */
  next?: ListPosition;
  /** How many stories the whole list has (search index lists only). */
  total?: ListTotal;
  /** Stories of the whole list per tag id, when asked for (search index lists only). */
  tagCounts?: TagCount[];
  /**
   * The stories of `ids` as the search index holds them, in the same order (search index lists
   * only): undefined for one whose texts the index does not carry (see LISTED_TEXT_MAX_BYTES).
   * Chapter ids are the published chapters'.
   */
  stories?: Array<Story | undefined>;
}

/** The size of a list: exact up to a bound, beyond it `lowerBound` and `value` is the bound. */
export interface ListTotal {
  value: number;
  lowerBound: boolean;
}

/** How many stories of a list carry one tag. */
export interface TagCount {
  tagId: string;
  count: number;
}

/** Where the author says a story stands; independent of publication. */
export type StoryStatus = 'complete' | 'incomplete' | 'on-hiatus' | 'cancelled';

/** The audience a story is written for. */
export type ContentRating = 'everyone' | 'teen' | 'mature';

/** Every status, in the order the API documents them. */
export const STORY_STATUSES: readonly StoryStatus[] = ['complete', 'incomplete', 'on-hiatus', 'cancelled'];

/** Every content rating, mildest first. */
export const CONTENT_RATINGS: readonly ContentRating[] = ['everyone', 'teen', 'mature'];

/** A story as the stories service knows it. */
export interface Story {
  id: string;
  authorId: string;
  title: string;
  shortDescription: string;
  /** Markdown. */
  description: string;
  descriptionHtml: string;
  status: StoryStatus;
  contentRating: ContentRating;
  /** false: a draft ("unsubmitted"). */
  published: boolean;
  /** Published chapters only. */
  numWords: number;
  numChapters: number;
  numViews: number;
  numLikes: number;
  numDislikes: number;
  numComments: number;
  /** 0–100, null without votes. */
  rating: number | null;
  hotness: number;
  /** Set at the first publication and kept afterwards. */
  datePublished: Date | null;
  dateModified: Date;
  /** When a chapter was last published. */
  dateUpdated: Date | null;
  /** Filter form: `c:<n>`, `g:<n>`. */
  tagIds: string[];
  /** In chapter order; only the chapters the viewer may see. */
  chapterIds: string[];
}

/** What an author writes about a story (its text, status, rating and tags), as stored. */
export type StoryWriting = Pick<Story, 'authorId' | 'title' | 'shortDescription' | 'description' | 'descriptionHtml' | 'status' | 'contentRating' | 'tagIds'>;

/** The values readers drive: views, votes, comments, and the rating and heat derived from them. */
export type StoryReaderStats = Pick<Story, 'numViews' | 'numLikes' | 'numDislikes' | 'numComments' | 'rating' | 'hotness'>;

/** The reader-driven values of a story nobody has read yet: no views, votes or comments, no rating, no heat. */
export function noReaderStats(): StoryReaderStats {
  return { numViews: 0, numLikes: 0, numDislikes: 0, numComments: 0, rating: null, hotness: 0 };
}

/** Who is asking, as far as visibility rules care (the caller of docs/api/stories.md, "Endpoints"). */
export interface Viewer {
  userId?: string;
  appId?: string;
  scopes: readonly string[];
}

/** The scope that reveals one's own drafts. */
export const READ_STORIES = 'read_stories';

/** True when `viewer` is a signed-in user holding read_stories and `authorId` is that user. */
export function canSeeDraftsOf(authorId: string, viewer: Viewer): boolean {
  return viewer.userId === authorId && viewer.scopes.includes(READ_STORIES);
}

/**
 * How a viewer may see one draft-or-published item by id (docs/api/stories.md, "Endpoints"):
 * - `visible`: published, or the viewer's own draft with read_stories;
 * - `needs_scope`: the viewer's own draft without read_stories (403 insufficient_scope);
 * - `hidden`: someone else's draft (404, as if it did not exist).
 */
export type Access = 'visible' | 'needs_scope' | 'hidden';

/** Applies the visibility rule of docs/api/stories.md, "Endpoints" to an item by `authorId` that is `published` or not. */
export function accessTo(authorId: string, published: boolean, viewer: Viewer): Access {
  if (published) return 'visible';
  if (viewer.userId !== authorId) return 'hidden';
  return viewer.scopes.includes(READ_STORIES) ? 'visible' : 'needs_scope';
}

/**
 * Story ids, each once, in the order every consumer transaction that locks several story rows
 * takes them (ascending, as Postgres orders the bigint): two such transactions then never wait
 * for each other in a circle (a deadlock, which Postgres breaks only after a second).
 */
export function inLockOrder(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}

/** True when `id` is a positive integer that fits a Postgres bigint (ids arrive as strings). */
export function isEntityId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= 9223372036854775807n;
}

import type { IssuerTable } from '@inkwell/grpc';
import type { StoriesService } from '@inkwell/proto/stories';

/** Only the gateway, which authenticated the API caller itself. */
const GATEWAY = ['gateway'] as const;
/**
 * The gateway and the bookshelves service: bookshelves reads a story for the caller it forwards
 * before shelving it (GetStory), and its demo seed lists published stories (ListStories).
 */
const GATEWAY_AND_BOOKSHELVES = ['gateway', 'bookshelves'] as const;

/**
 * Which issuer may call each RPC of the stories service (docs/api/foundation.md, "Internal
 * calls"): the reads bookshelves makes, the gateway and bookshelves; everything else, the gateway
 * only. A verified call from another issuer is PERMISSION_DENIED.
 */
export const STORIES_ISSUERS: IssuerTable<typeof StoriesService> = {
  getStory: GATEWAY_AND_BOOKSHELVES,
  listStories: GATEWAY_AND_BOOKSHELVES,
  batchGetStories: GATEWAY,
  listUserStories: GATEWAY,
  createStory: GATEWAY,
  updateStory: GATEWAY,
  deleteStory: GATEWAY,
  listChapters: GATEWAY,
  batchGetChapters: GATEWAY,
  getChapter: GATEWAY,
  listLatestChapters: GATEWAY,
  createChapter: GATEWAY,
  updateChapter: GATEWAY,
  deleteChapter: GATEWAY,
  listTags: GATEWAY,
  batchGetTags: GATEWAY,
  markChapterRead: GATEWAY,
  markChapterUnread: GATEWAY,
  listReadingProgress: GATEWAY,
  setStoryRating: GATEWAY,
  deleteStoryRating: GATEWAY,
  listComments: GATEWAY,
  createComment: GATEWAY,
  getComment: GATEWAY,
  deleteComment: GATEWAY,
};

import type { GrpcClient } from '@inkwell/grpc';
import type { BookshelvesService } from '@inkwell/proto/bookshelves';
import type { StoriesService } from '@inkwell/proto/stories';
import type { UsersService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { loadAllBatches, type ResourceLoaders } from '../jsonapi/index.js';
import { toBookshelfResource } from './bookshelf.resource.js';
import { toChapterResource } from './chapter.resource.js';
import { toStoryResource } from './story.resource.js';
import { toTagResource } from './tag.resource.js';
import { toUserResource } from './user.resource.js';

/** The backends the loaders call. */
export interface ResourceLoadersDeps {
  readonly users: GrpcClient<typeof UsersService>;
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly bookshelves: GrpcClient<typeof BookshelvesService>;
  readonly links: ApiLinks;
}

/**
 * The batch loader of every includable type (one entry per type): each fetches the ids it is
 * given with one batch RPC, as the caller (the backend applies visibility and leaves out what
 * the caller may not see), and again for ids an answer deferred to keep within its byte budget
 * (docs/api/foundation.md, "Byte budgets"). Chapters come without content (their authors' notes
 * count); tags are small and their answers never defer.
 */
export function createResourceLoaders({ users, stories, bookshelves, links }: ResourceLoadersDeps): ResourceLoaders {
  return {
    user: async (ids, { caller, allowance }) =>
      (await loadAllBatches(ids, allowance, async (wanted) => {
        const answer = await users.batchGetUsers({ ids: wanted }, { caller });
        return { items: answer.users, deferredIds: answer.deferredIds };
      })).map((user) => toUserResource(user, links)),
    story: async (ids, { caller, allowance }) =>
      (await loadAllBatches(ids, allowance, async (wanted) => {
        const answer = await stories.batchGetStories({ ids: wanted }, { caller });
        return { items: answer.stories, deferredIds: answer.deferredIds };
      })).map((story) => toStoryResource(story, links)),
    chapter: async (ids, { caller, allowance }) =>
      (await loadAllBatches(ids, allowance, async (wanted) => {
        const answer = await stories.batchGetChapters({ ids: wanted }, { caller });
        return { items: answer.chapters, deferredIds: answer.deferredIds };
      })).map((chapter) => toChapterResource(chapter, links)),
    tag: async (ids, { caller }) => (await stories.batchGetTags({ ids: [...ids] }, { caller })).tags.map(toTagResource),
    bookshelf: async (ids, { caller, allowance }) =>
      (await loadAllBatches(ids, allowance, async (wanted) => {
        const answer = await bookshelves.batchGetBookshelves({ ids: wanted }, { caller });
        return { items: answer.bookshelves, deferredIds: answer.deferredIds };
      })).map((shelf) => toBookshelfResource(shelf, links)),
  };
}

import type { GrpcClient } from '@inkwell/grpc';
import type { BookshelvesService } from '@inkwell/proto/bookshelves';
import type { StoriesService } from '@inkwell/proto/stories';
import type { UsersService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { ResourceLoaders } from '../jsonapi/index.js';
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
 * The batch loader of every includable type (one line per type): each fetches all the ids it
 * is given with ONE batch RPC, as the caller (the backend applies visibility and leaves out what
 * the caller may not see). Chapters come without content: included chapters never carry it.
 */
export function createResourceLoaders({ users, stories, bookshelves, links }: ResourceLoadersDeps): ResourceLoaders {
  return {
    user: async (ids, { caller }) => (await users.batchGetUsers({ ids: [...ids] }, { caller })).users.map((user) => toUserResource(user, links)),
    story: async (ids, { caller }) => (await stories.batchGetStories({ ids: [...ids] }, { caller })).stories.map((story) => toStoryResource(story, links)),
    chapter: async (ids, { caller }) => (await stories.batchGetChapters({ ids: [...ids] }, { caller })).chapters.map((chapter) => toChapterResource(chapter, links)),
    tag: async (ids, { caller }) => (await stories.batchGetTags({ ids: [...ids] }, { caller })).tags.map(toTagResource),
    bookshelf: async (ids, { caller }) => (await bookshelves.batchGetBookshelves({ ids: [...ids] }, { caller })).bookshelves.map((shelf) => toBookshelfResource(shelf, links)),
  };
}

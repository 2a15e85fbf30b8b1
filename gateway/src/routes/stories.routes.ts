import { create } from '@bufbuild/protobuf';
import { AppError, ErrorCode, isAppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import type { BookshelvesService } from '@inkwell/proto/bookshelves';
import type { RelationsService } from '@inkwell/proto/users';
import { ListStoriesRequestSchema, StoriesService, StoryFilterSchema } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { DocumentResponder } from '../jsonapi/index.js';
import {
  storiesOf,
  STORY_DOCUMENT,
  STORY_LIST,
  STORY_WRITE,
  storyCreateRequest,
  storyListMeta,
  storyListRequest,
  storyOf,
  storyUpdateRequest,
  USER_STORY_LIST,
  userStoryListRequest,
} from '../resources/story.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';
import { hidingRpc } from './hidden-content.js';

/** What the story routes need: the stories client, the link builder and the document responder. */
export interface StoriesRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  /** Asked whether the caller may see a shelf named by `filter[bookshelf]`, at request time. */
  readonly bookshelves: GrpcClient<typeof BookshelvesService>;
  /** Asked what the caller mutes and blocks, which GET /stories leaves out (docs/api/safety.md). */
  readonly relations: GrpcClient<typeof RelationsService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/**
 * The story endpoints (paths relative to /api/v1), and `GET /users/:id/stories`. Reads need a
 * valid token; what a caller may see (drafts need authorship and read_stories) is the service's
 * rule. Writes act as the signed-in user with write_stories; authorship is the service's rule.
 */
export function storiesRoutes({ stories, bookshelves, relations, links, documents }: StoriesRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/stories',
      doc: { summary: 'Search and list published stories.', errors: ['unread_requires_owned_bookshelf', 'insufficient_scope', 'not_found'] },
      query: STORY_LIST,
      toRequest: ({ query }) => ({ ...storyListRequest(query), hideBlocked: query.filters.hide_blocked }),
      // What the caller mutes always, and with filter[hide_blocked]=true whom they block, leave the list (docs/api/safety.md).
      rpc: hidingRpc(StoriesService.method.listStories, relations, { mutes: true }, async (listed, hidden, options) => {
        const request = create(ListStoriesRequestSchema, listed);
        request.filter ??= create(StoryFilterSchema);
        request.filter.hiddenAuthorIds = hidden.authorIds;
        request.filter.hiddenTagIds = hidden.tagIds;
        const shelfId = request.filter.bookshelfId;
        if (shelfId === undefined) return stories.listStories(request, options);
        const [shelf, answer] = await Promise.allSettled([checkShelfVisible(bookshelves, shelfId, options.caller), stories.listStories(request, options)]);
        // The shelf's answer first: whether it may be seen decides before anything the list says about it.
        if (shelf.status === 'rejected') throw shelf.reason;
        if (answer.status === 'rejected') throw answer.reason;
        return answer.value;
      }),
      toResources: storiesOf,
      meta: storyListMeta,
    }),
    route.list({
      path: '/users/:id/stories',
      doc: { summary: "A user's stories; their own drafts too with read_stories.", errors: ['insufficient_scope'] },
      params: { id: 'user' },
      query: USER_STORY_LIST,
      toRequest: ({ params, query }) => userStoryListRequest(params.id, query),
      rpc: rpcOf(stories, StoriesService.method.listUserStories),
      toResources: storiesOf,
    }),
    route.read({
      path: '/stories/:id',
      doc: { summary: 'One story (a draft only for its author, with read_stories).', errors: ['insufficient_scope'] },
      query: STORY_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(stories, StoriesService.method.getStory),
      toResource: storyOf,
    }),
    route.create({
      path: '/stories',
      doc: { summary: 'Create a story as the signed-in user.' },
      query: STORY_DOCUMENT,
      body: STORY_WRITE,
      toRequest: ({ body }) => storyCreateRequest(body),
      rpc: rpcOf(stories, StoriesService.method.createStory),
      toResource: storyOf,
    }),
    route.update({
      path: '/stories/:id',
      doc: { summary: 'Change a story of yours (publishing needs a published chapter).' },
      query: STORY_DOCUMENT,
      body: STORY_WRITE,
      toRequest: ({ params, body }) => storyUpdateRequest(params.id, body),
      rpc: rpcOf(stories, StoriesService.method.updateStory),
      toResource: storyOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/stories/:id',
      doc: { summary: 'Delete a story of yours.' },
      checkedQuery: STORY_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(stories, StoriesService.method.deleteStory),
    }),
  ];
}

/**
 * Checks that `caller` may see shelf `id` now, as the bookshelves service (the owner of that
 * rule) says at request time (docs/api/stories.md, "Bookshelves in story lists"): the stories
 * service's event-fed copy of shelves may not have heard yet that a shelf went private or was
 * deleted, and a list must never show a private shelf to others, not even while events are late.
 * A shelf it does not show (none with that id, or another user's private one) is `404
 * not_found` naming `filter[bookshelf]`, the same for both so that nothing is revealed; its other
 * errors (insufficient_scope, unavailable) are the answer.
 */
async function checkShelfVisible(bookshelves: GrpcClient<typeof BookshelvesService>, id: string, caller: CallerContext | undefined): Promise<void> {
  try {
    await bookshelves.getBookshelf({ id }, { ...(caller === undefined ? {} : { caller }) });
  } catch (error) {
    if (isAppError(error) && error.code === ErrorCode.NOT_FOUND) throw hiddenShelf();
    throw error;
  }
}

/** The answer to a `filter[bookshelf]` naming a shelf the caller may not see, or none. */
function hiddenShelf(): AppError {
  const detail = 'There is no bookshelf with this id that you can see.';
  return new AppError(ErrorCode.NOT_FOUND, detail, { details: [{ reason: 'not_found', parameter: 'filter[bookshelf]', detail }] });
}

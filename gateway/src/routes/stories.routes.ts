import { ErrorCode, isAppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import { STORY_LIST_EXACT_TOTAL_MAX, STORY_QUERY_MAX_CHARS } from '@inkwell/limits';
import type { BookshelvesService } from '@inkwell/proto/bookshelves';
import type { StoriesService } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineDocumentSpec, defineListSpec, filters, type DocumentResponder } from '../jsonapi/index.js';
import { CHAPTER_CONTENT_FIELDS, CHAPTER_SCHEMA } from '../resources/chapter.resource.js';
import {
  storiesOf,
  STORY_SCHEMA,
  STORY_SORT_FIELDS,
  STORY_STATUSES,
  STORY_WRITE,
  storyCreateRequest,
  storyListMeta,
  storyListRequest,
  storyOf,
  storyUpdateRequest,
  userStoryListRequest,
} from '../resources/story.resource.js';
import { TAG_SCHEMA } from '../resources/tag.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import type { RouteDefinition } from '../routing/route.types.js';

/** What the story routes need: the stories client, the link builder and the document responder. */
export interface StoriesRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  /** Asked whether the caller may see a shelf named by `filter[bookshelf]`, at request time. */
  readonly bookshelves: GrpcClient<typeof BookshelvesService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

const INT32_MAX = 2_147_483_647;

/** Types reachable from a story, and what `include` offers on story documents. */
const STORY_TYPES = [USER_SCHEMA, CHAPTER_SCHEMA, TAG_SCHEMA];
const STORY_INCLUDES = ['author', 'chapters', 'tags'];
const STORY_UNAVAILABLE_FIELDS = { chapter: CHAPTER_CONTENT_FIELDS };

/**
 * GET /stories (docs/api/stories.md, "GET /stories"): published stories
 * only; the filters of that page, a `query` search, one sort field (default
 * `-date_published`; `relevance` needs a query), cursor pages of 20 (max 100). The shelf rules
 * (`date_added` needs `filter[bookshelf]`, `filter[unread]` a shelf the caller owns, private
 * shelves their owner with read_bookshelves) are the stories service's.
 */
export const STORY_LIST = defineListSpec({
  resource: STORY_SCHEMA,
  types: STORY_TYPES,
  includes: STORY_INCLUDES,
  unavailableFields: STORY_UNAVAILABLE_FIELDS,
  filters: {
    ids: filters.ids(),
    author: filters.id(),
    num_words: filters.integerRange({ min: 0, max: INT32_MAX }),
    status: filters.enumeration(STORY_STATUSES),
    date_published: filters.dateRange(),
    tags: filters.tags(),
    bookshelf: filters.id(),
    unread: filters.boolean(),
  },
  sort: {
    fields: STORY_SORT_FIELDS,
    default: '-date_published',
    relevance: 'relevance',
  },
  search: { maxLength: STORY_QUERY_MAX_CHARS },
  facets: ['tags'],
  total: { exactUpTo: STORY_LIST_EXACT_TOTAL_MAX },
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/**
 * GET /users/:id/stories: one author's stories, `filter[published]` (drafts need read_stories
 * and being the author: the service's rule), the sort fields of GET /stories except relevance
 * (there is no search here) and date_added (there is no shelf), cursor pages of 20 (max 100).
 */
export const USER_STORY_LIST = defineListSpec({
  resource: STORY_SCHEMA,
  types: STORY_TYPES,
  includes: STORY_INCLUDES,
  unavailableFields: STORY_UNAVAILABLE_FIELDS,
  filters: { published: filters.boolean() },
  sort: {
    fields: STORY_SORT_FIELDS.filter((field) => field !== 'relevance' && field !== 'date_added'),
    default: '-date_published',
    unavailable: {
      relevance: 'sort=relevance needs a search; GET /users/:id/stories has none.',
      date_added: 'sort=date_added needs filter[bookshelf], which only GET /stories has.',
    },
  },
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/** GET /stories/:id and the responses of POST/PATCH: `include` author, chapters, tags and `fields`. */
export const STORY_DOCUMENT = defineDocumentSpec({ resource: STORY_SCHEMA, types: STORY_TYPES, includes: STORY_INCLUDES, unavailableFields: STORY_UNAVAILABLE_FIELDS });

/**
 * The story endpoints (paths relative to /api/v1), and `GET /users/:id/stories`. Reads need a
 * valid token; what a caller may see (drafts need authorship and read_stories) is the service's
 * rule. Writes act as the signed-in user with write_stories; authorship is the service's rule.
 */
export function storiesRoutes({ stories, bookshelves, links, documents }: StoriesRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/stories',
      doc: { summary: 'Search and list published stories.', errors: ['unread_requires_owned_bookshelf', 'insufficient_scope'] },
      query: STORY_LIST,
      toRequest: ({ query }) => storyListRequest(query),
      rpc: async (request, options) => {
        const shelfId = request.filter?.bookshelfId;
        if (shelfId === undefined) return stories.listStories(request, options);
        const [visible, answer] = await Promise.all([shelfVisible(bookshelves, shelfId, options.caller), stories.listStories(request, options)]);
        return visible ? answer : { ...answer, stories: [], nextAfter: '' };
      },
      toResources: storiesOf,
      meta: storyListMeta,
    }),
    route.list({
      path: '/users/:id/stories',
      doc: { summary: "A user's stories; their own drafts too with read_stories.", errors: ['insufficient_scope'] },
      params: { id: 'user' },
      query: USER_STORY_LIST,
      toRequest: ({ params, query }) => userStoryListRequest(params.id, query),
      rpc: (request, options) => stories.listUserStories(request, options),
      toResources: storiesOf,
    }),
    route.read({
      path: '/stories/:id',
      doc: { summary: 'One story (a draft only for its author, with read_stories).', errors: ['insufficient_scope'] },
      query: STORY_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: (request, options) => stories.getStory(request, options),
      toResource: storyOf,
    }),
    route.create({
      path: '/stories',
      doc: { summary: 'Create a story as the signed-in user.' },
      scope: 'write_stories',
      requiresUser: true,
      query: STORY_DOCUMENT,
      body: STORY_WRITE,
      toRequest: ({ body }) => storyCreateRequest(body),
      rpc: (request, options) => stories.createStory(request, options),
      toResource: storyOf,
    }),
    route.update({
      path: '/stories/:id',
      doc: { summary: 'Change a story of yours (publishing needs a published chapter).' },
      scope: 'write_stories',
      requiresUser: true,
      query: STORY_DOCUMENT,
      body: STORY_WRITE,
      toRequest: ({ params, body }) => storyUpdateRequest(params.id, body),
      rpc: (request, options) => stories.updateStory(request, options),
      toResource: storyOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/stories/:id',
      doc: { summary: 'Delete a story of yours.' },
      scope: 'write_stories',
      requiresUser: true,
      checkedQuery: STORY_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: (request, options) => stories.deleteStory(request, options),
    }),
  ];
}

/**
 * Whether `caller` may see shelf `id` now, as the bookshelves service (the owner of that rule)
 * says at request time (docs/api/stories.md, "Bookshelves in story lists"): the stories
 * service's event-fed copy of shelves may not have heard yet that a shelf went private or was
 * deleted, and a list must never show a private shelf to others, not even while events are late.
 * A shelf it does not show is a list matching nothing; its other errors (insufficient_scope,
 * unavailable) are the answer.
 */
async function shelfVisible(bookshelves: GrpcClient<typeof BookshelvesService>, id: string, caller: CallerContext | undefined): Promise<boolean> {
  try {
    await bookshelves.getBookshelf({ id }, { ...(caller === undefined ? {} : { caller }) });
    return true;
  } catch (error) {
    if (isAppError(error) && error.code === ErrorCode.NOT_FOUND) return false;
    throw error;
  }
}

import type { MessageInitShape } from '@bufbuild/protobuf';
import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import { STORY_QUERY_MAX_CHARS } from '@inkwell/limits';
import { ContentRating, SortDirection, StorySortField, StoryStatus, type ListStoriesResponse, type StoriesService, type Story, type StoryFilterSchema, type StorySortSchema } from '@inkwell/proto/stories';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { JsonValue } from '../jsonapi/document.builder.js';
import {
  defineDocumentSpec,
  defineListSpec,
  filters,
  parseCreateBody,
  parseDocumentQuery,
  parseListQuery,
  parseUpdateBody,
  type DocumentResponder,
  type ParsedFilters,
  type SortOrder,
} from '../lists/index.js';
import { CHAPTER_CONTENT_FIELDS, CHAPTER_SCHEMA } from '../resources/chapter.resource.js';
import { contentRatingToProto, STORY_SCHEMA, STORY_STATUSES, STORY_WRITE, storyStatusToProto, toStoryResource } from '../resources/story.resource.js';
import { TAG_SCHEMA } from '../resources/tag.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { defineRoute, type ApiRequest, type RouteDefinition } from '../routing/route.types.js';

/** What the story routes need: the stories client, the link builder and the document responder. */
export interface StoriesRoutesDeps {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

const INT32_MAX = 2_147_483_647;

/** Sort fields of GET /stories with their proto enum (GET /users/:id/stories offers all but relevance and date_added). */
const SORT_FIELDS = {
  date_published: StorySortField.DATE_PUBLISHED,
  hotness: StorySortField.HOTNESS,
  date_modified: StorySortField.DATE_MODIFIED,
  rating: StorySortField.RATING,
  num_words: StorySortField.NUM_WORDS,
  num_views: StorySortField.NUM_VIEWS,
  num_comments: StorySortField.NUM_COMMENTS,
  num_likes: StorySortField.NUM_LIKES,
  num_dislikes: StorySortField.NUM_DISLIKES,
  relevance: StorySortField.RELEVANCE,
  date_added: StorySortField.DATE_ADDED,
} as const;
type StorySortName = keyof typeof SORT_FIELDS;

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
    fields: Object.keys(SORT_FIELDS) as StorySortName[],
    default: '-date_published',
    relevance: 'relevance',
  },
  search: { maxLength: STORY_QUERY_MAX_CHARS },
  facets: ['tags'],
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
    fields: (Object.keys(SORT_FIELDS) as StorySortName[]).filter((field) => field !== 'relevance' && field !== 'date_added'),
    default: '-date_published',
    unavailable: {
      relevance: 'sort=relevance needs a search; GET /users/:id/stories has none.',
      date_added: 'sort=date_added needs filter[bookshelf], which only GET /stories has.',
    },
  },
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/**
 * `meta` of GET /stories (docs/api/stories.md, "Search"): `total` and `total_is_lower_bound` when
 * the service counted the list (not with filter[bookshelf]), and `facets.tags` (tag id → stories,
 * most first) when `facets=tags` asked for it.
 */
function storyListMeta(response: ListStoriesResponse, tagFacets: boolean): { [key: string]: JsonValue } | undefined {
  const meta: { [key: string]: JsonValue } = {};
  if (response.total !== undefined) {
    meta.total = response.total;
    meta.total_is_lower_bound = response.totalIsLowerBound;
  }
  if (tagFacets) meta.facets = { tags: Object.fromEntries(response.tagCounts.map((count) => [count.tagId, count.count])) };
  return Object.keys(meta).length === 0 ? undefined : meta;
}

/** GET /stories/:id and the responses of POST/PATCH: `include` author, chapters, tags and `fields`. */
export const STORY_DOCUMENT = defineDocumentSpec({ resource: STORY_SCHEMA, types: STORY_TYPES, includes: STORY_INCLUDES, unavailableFields: STORY_UNAVAILABLE_FIELDS });

/**
 * The story endpoints (paths relative to /api/v1), and `GET /users/:id/stories`. Reads need a
 * valid token; what a caller may see (drafts need authorship and read_stories) is the service's
 * rule. Writes act as the signed-in user with write_stories; authorship is the service's rule.
 */
export function storiesRoutes({ stories, links, documents }: StoriesRoutesDeps): RouteDefinition[] {
  const toResource = (story: Story | undefined) => {
    if (story === undefined) throw AppError.notFound('story');
    return toStoryResource(story, links);
  };

  return [
    defineRoute({
      method: 'GET',
      path: '/stories',
      doc: { summary: 'Search and list published stories.', query: STORY_LIST, errors: ['unread_requires_owned_bookshelf'] },
      async handler(request) {
        const query = parseListQuery(STORY_LIST, request.query);
        const position = await documents.cursorStart(request, query);
        const response = await stories.listStories(
          {
            query: query.search ?? '',
            filter: storyFilter(query.filters),
            sort: storySort(query.sort),
            pageSize: query.page.size,
            after: position.after,
            countTags: query.facets.includes('tags'),
          },
          { caller: request.caller },
        );
        return documents.cursorPage(request, query, position, response.stories.map((story) => toStoryResource(story, links)), response.nextAfter, storyListMeta(response, query.facets.includes('tags')));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/users/:id/stories',
      doc: { summary: "A user's stories; their own drafts too with read_stories.", query: USER_STORY_LIST, errors: ['insufficient_scope'] },
      params: { id: 'user' },
      async handler(request) {
        const query = parseListQuery(USER_STORY_LIST, request.query);
        const position = await documents.cursorStart(request, query);
        const response = await stories.listUserStories(
          { userId: request.params.id, published: query.filters.published, sort: storySort(query.sort), pageSize: query.page.size, after: position.after },
          { caller: request.caller },
        );
        return documents.cursorPage(request, query, position, response.stories.map((story) => toStoryResource(story, links)), response.nextAfter);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/stories/:id',
      doc: { summary: 'One story (a draft only for its author, with read_stories).', query: STORY_DOCUMENT, errors: ['insufficient_scope'] },
      async handler(request) {
        const query = parseDocumentQuery(STORY_DOCUMENT, request.query);
        const { story } = await stories.getStory({ id: request.params.id }, { caller: request.caller });
        return documents.resource(request, query, toResource(story));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/stories',
      doc: { summary: 'Create a story as the signed-in user.', query: STORY_DOCUMENT, body: STORY_WRITE },
      scope: 'write_stories',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(STORY_DOCUMENT, request.query);
        const { attributes, relationships } = parseCreateBody(STORY_WRITE, request.body);
        const { story } = await stories.createStory(
          {
            title: attributes.title ?? '',
            shortDescription: attributes.short_description ?? '',
            description: attributes.description ?? '',
            status: attributes.status === undefined ? StoryStatus.UNSPECIFIED : storyStatusToProto(attributes.status),
            contentRating: attributes.content_rating === undefined ? ContentRating.UNSPECIFIED : contentRatingToProto(attributes.content_rating),
            published: attributes.published ?? false,
            tagIds: [...(relationships.tags ?? [])],
          },
          { caller: request.caller },
        );
        return created(request, query, toResource(story));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/stories/:id',
      doc: { summary: 'Change a story of yours (publishing needs a published chapter).', query: STORY_DOCUMENT, body: STORY_WRITE },
      scope: 'write_stories',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(STORY_DOCUMENT, request.query);
        const { attributes, relationships } = parseUpdateBody(STORY_WRITE, request.body, request.params.id);
        const { story } = await stories.updateStory(
          {
            id: request.params.id,
            title: attributes.title,
            shortDescription: attributes.short_description,
            description: attributes.description,
            status: attributes.status === undefined ? undefined : storyStatusToProto(attributes.status),
            contentRating: attributes.content_rating === undefined ? undefined : contentRatingToProto(attributes.content_rating),
            published: attributes.published,
            tags: relationships.tags === undefined ? undefined : { ids: [...relationships.tags] },
          },
          { caller: request.caller },
        );
        return documents.resource(request, query, toResource(story));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/stories/:id',
      doc: { summary: 'Delete a story of yours.' },
      scope: 'write_stories',
      requiresUser: true,
      async handler(request) {
        parseDocumentQuery(STORY_DOCUMENT, request.query);
        await stories.deleteStory({ id: request.params.id }, { caller: request.caller });
        return { status: 204 };
      },
    }),
  ];

  /** 201 Created with `Location` and `links.self` naming the new story (JSON:API 1.1). */
  function created(request: ApiRequest, query: ReturnType<typeof parseDocumentQuery>, resource: ReturnType<typeof toStoryResource>) {
    const self = links.to(`/stories/${resource.id}`);
    return documents.resource(request, query, resource, { status: 201, headers: { Location: self }, self });
  }
}

/** The proto filter of GET /stories; unset filters filter nothing (`unread` is passed as sent: the service checks it even when false). */
function storyFilter(values: ParsedFilters<(typeof STORY_LIST)['filters']>): MessageInitShape<typeof StoryFilterSchema> {
  return {
    ids: [...(values.ids ?? [])],
    authorId: values.author,
    numWordsMin: values.num_words?.min,
    numWordsMax: values.num_words?.max,
    status: values.status === undefined ? StoryStatus.UNSPECIFIED : storyStatusToProto(values.status),
    datePublishedMin: values.date_published?.min,
    datePublishedMax: values.date_published?.max,
    tagIds: [...(values.tags ?? [])],
    bookshelfId: values.bookshelf,
    unread: values.unread,
  };
}

/** The proto sort of a parsed sort order (always explicit: field and direction). */
function storySort(order: SortOrder<StorySortName> | undefined): MessageInitShape<typeof StorySortSchema> {
  if (order === undefined) return { field: StorySortField.UNSPECIFIED };
  return { field: SORT_FIELDS[order.field], direction: order.descending ? SortDirection.DESCENDING : SortDirection.ASCENDING };
}

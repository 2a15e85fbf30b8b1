import type { MessageInitShape } from '@bufbuild/protobuf';
import { AppError } from '@inkwell/errors';
import { STORY_LIST_EXACT_TOTAL_MAX } from '@inkwell/limits';
import {
  ContentRatingSchema,
  CreateStoryRequestSchema,
  ListStoriesRequestSchema,
  ListUserStoriesRequestSchema,
  SortDirection,
  StoryFilterSchema,
  StorySchema,
  StorySortFieldSchema,
  StoryStatusSchema,
  type ListStoriesResponse,
  type Story,
  type StorySortSchema,
  type UpdateStoryRequestSchema,
} from '@inkwell/proto/stories';
import { DOWNLOAD_FORMATS, downloadPath } from '../downloads/download-format.js';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type JsonValue, type ResourceObject } from '../jsonapi/document.builder.js';
import {
  attributeTypes as at,
  cursorPagination,
  defineDocumentSpec,
  defineListSpec,
  defineResourceSchema,
  defineWriteSpec,
  filters,
  identifierIds,
  integerRule,
  maxChars,
  maxItems,
  writeValues,
  type SortOrder,
} from '../jsonapi/index.js';
import type { BodyOf, ListQueryOf } from '../routing/route-kinds.js';
import { CHAPTER_CONTENT_FIELDS, CHAPTER_SCHEMA } from './chapter.resource.js';
import { protoEnumNames } from './proto-enum.js';
import { protoResourceMapper } from './proto-resource.js';
import { TAG_SCHEMA } from './tag.resource.js';
import { USER_SCHEMA } from './user.resource.js';

/** The JSON:API type of stories. */
export const STORY_TYPE = 'story';

const STATUS = protoEnumNames(StoryStatusSchema, { separator: '-' });
const CONTENT_RATING = protoEnumNames(ContentRatingSchema);

/** The public values of story `status` (docs/api/foundation.md, "Resource types"): complete, incomplete, on-hiatus, cancelled. */
export const STORY_STATUSES = STATUS.names;

/** The public values of story `content_rating` (docs/api/foundation.md, "Resource types"): everyone, teen, mature. */
export const CONTENT_RATINGS = CONTENT_RATING.names;

/** The proto enum of a public status (for filters and writes); undefined (not sent) is UNSPECIFIED. */
export const storyStatusToProto = STATUS.toProto;

/**
 * The sort fields of story lists, in the order the API lists them (GET /stories offers all,
 * GET /users/:id/stories all but relevance and date_added).
 */
const SORT_FIELD = protoEnumNames(StorySortFieldSchema, {
  names: ['date_published', 'hotness', 'date_modified', 'date_updated', 'rating', 'num_words', 'num_views', 'num_comments', 'num_likes', 'num_dislikes', 'relevance', 'date_added'],
});

/** The sort fields of story lists (see SORT_FIELD). */
export const STORY_SORT_FIELDS = SORT_FIELD.names;
/** A sort field of story lists. */
export type StorySortName = (typeof STORY_SORT_FIELDS)[number];

/**
 * The story type (docs/api/foundation.md, "Resource types"). Tags are the writable `tags` relationship; there is no tags
 * attribute. Nothing is heavy: `description` is bounded and part of every listing.
 */
export const STORY_SCHEMA = defineResourceSchema({
  type: STORY_TYPE,
  description: 'A story: its text lives in its chapters.',
  attributes: {
    title: at.string(),
    short_description: at.string(),
    description: at.string('Markdown.'),
    description_html: at.html('description'),
    status: at.enumeration(STORY_STATUSES, undefined, { nullable: true }),
    content_rating: at.enumeration(CONTENT_RATINGS, undefined, { nullable: true }),
    published: at.boolean('`false` = unsubmitted (a draft).'),
    num_words: at.integer('Words of the published chapters.', { minimum: 0 }),
    num_chapters: at.integer('Published chapters.', { minimum: 0 }),
    num_views: at.integer(undefined, { minimum: 0 }),
    num_likes: at.integer(undefined, { minimum: 0 }),
    num_dislikes: at.integer(undefined, { minimum: 0 }),
    num_comments: at.integer(undefined, { minimum: 0 }),
    rating: at.integer('0–100; null without votes.', { nullable: true, minimum: 0, maximum: 100 }),
    hotness: at.number('Higher is hotter (docs/api/stories.md).'),
    date_published: at.dateTime('Null until first published.', { nullable: true }),
    date_modified: at.dateTime(undefined, { nullable: true }),
    date_updated: at.dateTime('When a chapter was last published.', { nullable: true }),
  },
  relationships: { author: { type: 'user', many: false }, chapters: { type: 'chapter', many: true }, tags: { type: 'tag', many: true } },
});

/** Types reachable from a story, and what `include` offers on story documents. */
const STORY_TYPES = [USER_SCHEMA, CHAPTER_SCHEMA, TAG_SCHEMA];
const STORY_INCLUDES = ['author', 'chapters', 'tags'];
const STORY_UNAVAILABLE_FIELDS = { chapter: CHAPTER_CONTENT_FIELDS };

/**
 * GET /stories (docs/api/stories.md, "GET /stories"): published stories only; the filters of
 * that page, a `query` search, one sort field (default `-date_published`; `relevance` needs a
 * query), cursor pages (20 by default; the most is the rule of the request's page_size). The
 * shelf rules (`date_added` needs `filter[bookshelf]`, `filter[unread]` a shelf the caller owns,
 * private shelves their owner with read_bookshelves) are the stories service's.
 */
export const STORY_LIST = defineListSpec({
  resource: STORY_SCHEMA,
  types: STORY_TYPES,
  includes: STORY_INCLUDES,
  unavailableFields: STORY_UNAVAILABLE_FIELDS,
  filters: {
    ids: filters.ids(StoryFilterSchema.field.ids),
    author: filters.ids(StoryFilterSchema.field.authorIds),
    num_words: filters.integerRange(integerRule(StoryFilterSchema.field.numWordsMin)),
    status: filters.enumeration(STORY_STATUSES),
    date_published: filters.dateRange(),
    date_updated: filters.dateRange(),
    tags: filters.tagSelection(StoryFilterSchema.field.tagIds, StoryFilterSchema.field.excludedTagIds),
    content_rating: filters.enumerations(CONTENT_RATINGS, StoryFilterSchema.field.contentRatings),
    bookshelf: filters.id(),
    unread: filters.boolean(),
    hide_blocked: filters.boolean(),
  },
  sort: {
    fields: STORY_SORT_FIELDS,
    default: '-date_published',
    relevance: 'relevance',
  },
  search: { maxLength: maxChars(ListStoriesRequestSchema.field.query) },
  facets: ['tags'],
  total: { exactUpTo: STORY_LIST_EXACT_TOTAL_MAX },
  pagination: cursorPagination(ListStoriesRequestSchema.field.pageSize),
});

/**
 * GET /users/:id/stories: one author's stories, `filter[published]` (drafts need read_stories
 * and being the author: the service's rule), the sort fields of GET /stories except relevance
 * (there is no search here) and date_added (there is no shelf), cursor pages (20 by default;
 * the most is the rule of the request's page_size).
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
  pagination: cursorPagination(ListUserStoriesRequestSchema.field.pageSize),
});

/** GET /stories/:id and the responses of POST/PATCH: `include` author, chapters, tags and `fields`. */
export const STORY_DOCUMENT = defineDocumentSpec({ resource: STORY_SCHEMA, types: STORY_TYPES, includes: STORY_INCLUDES, unavailableFields: STORY_UNAVAILABLE_FIELDS });

/**
 * What POST/PATCH /stories accept: the W attributes of docs/api/foundation.md, "Resource types" with the limits of docs/api/stories.md, "Writing", and
 * the `tags` relationship (ids `c:<n>`/`g:<n>`). `title` is required on create; the service
 * applies the defaults and the publishing rules.
 */
export const STORY_WRITE = defineWriteSpec({
  resource: STORY_SCHEMA,
  attributes: {
    title: writeValues.string(),
    short_description: writeValues.string(),
    description: writeValues.string(),
    status: writeValues.enumeration(STORY_STATUSES),
    content_rating: writeValues.enumeration(CONTENT_RATINGS),
    published: writeValues.boolean(),
  },
  relationships: { tags: { type: 'tag', many: true, id: identifierIds.tag(CreateStoryRequestSchema.field.tagIds), maxItems: maxItems(CreateStoryRequestSchema.field.tagIds) } },
  required: ['title'],
});

const STORY_FIELDS = protoResourceMapper(StorySchema, STORY_SCHEMA, { enums: { status: STATUS, content_rating: CONTENT_RATING } });

/**
 * Maps a stories.v1 Story to its JSON:API resource: dates in ISO 8601 UTC or null (never the
 * epoch), `rating` null without votes, linkage to the author, the chapters the caller may see
 * (in chapter order) and the tags; `links.self` = PUBLIC_BASE_URL/api/v1/stories/<id>, and the
 * downloads' links.
 */
export function toStoryResource(story: Story, links: ApiLinks): ResourceObject {
  return resourceObject(STORY_TYPE, story.id, STORY_FIELDS.attributes(story), { relationships: STORY_FIELDS.relationships(story), self: links.to(`/stories/${story.id}`), links: downloadLinks(story.id, links) });
}

/** `download_epub`, `download_html`, `download_txt`: the story's downloads (docs/api/stories.md, "Downloads"). */
function downloadLinks(storyId: string, links: ApiLinks): Record<string, string> {
  return Object.fromEntries(DOWNLOAD_FORMATS.map((format) => [`download_${format}`, links.to(downloadPath(storyId, format))]));
}

/**
 * Resources already mapped from Story messages. The gateway's caches (docs/api/foundation.md,
 * "Caching at the edge") hand the same message to many requests, so it is mapped once; resources
 * are never changed after mapping (narrowing `fields` builds new objects).
 */
const mappedStories = new WeakMap<Story, { readonly links: ApiLinks; readonly resource: ResourceObject }>();

/** {@link toStoryResource}, once per message object and link builder. */
function storyResource(story: Story, links: ApiLinks): ResourceObject {
  const known = mappedStories.get(story);
  if (known !== undefined && known.links === links) return known.resource;
  const resource = toStoryResource(story, links);
  mappedStories.set(story, { links, resource });
  return resource;
}

/** The story of a single-story response (get, create, update); a response without one is 404. */
export function storyOf({ story }: { readonly story?: Story }, links: ApiLinks): ResourceObject {
  if (story === undefined) throw AppError.notFound('story');
  return storyResource(story, links);
}

/** The stories of a list response. */
export function storiesOf({ stories }: { readonly stories: readonly Story[] }, links: ApiLinks): ResourceObject[] {
  return stories.map((story) => storyResource(story, links));
}

/**
 * GET /stories for the stories service: the search text, the filters (unset ones filter nothing;
 * `unread` is passed as sent: the service checks it even when false), the sort and whether to
 * count tags (`facets=tags`).
 */
export function storyListRequest(query: ListQueryOf<typeof STORY_LIST>): MessageInitShape<typeof ListStoriesRequestSchema> {
  const values = query.filters;
  return {
    query: query.search ?? '',
    filter: {
      ids: [...(values.ids ?? [])],
      authorIds: [...(values.author ?? [])],
      numWordsMin: values.num_words?.min,
      numWordsMax: values.num_words?.max,
      status: STATUS.toProto(values.status),
      datePublishedMin: values.date_published?.min,
      datePublishedMax: values.date_published?.max,
      dateUpdatedMin: values.date_updated?.min,
      dateUpdatedMax: values.date_updated?.max,
      tagIds: [...(values.tags?.include ?? [])],
      excludedTagIds: [...(values.tags?.exclude ?? [])],
      contentRatings: (values.content_rating ?? []).map((rating) => CONTENT_RATING.toProto(rating)),
      bookshelfId: values.bookshelf,
      unread: values.unread,
    },
    sort: storySort(query.sort),
    countTags: query.facets.includes('tags'),
  };
}

/** GET /users/:id/stories for the stories service: the author, `filter[published]` and the sort. */
export function userStoryListRequest(userId: string, query: ListQueryOf<typeof USER_STORY_LIST>): MessageInitShape<typeof ListUserStoriesRequestSchema> {
  return { userId, published: query.filters.published, sort: storySort(query.sort) };
}

/**
 * `meta` of GET /stories (docs/api/stories.md, "Search"): `total` and `total_is_lower_bound` when
 * the service counted the list (not with filter[bookshelf]), and `facets.tags` (tag id → stories,
 * most first) when `facets=tags` asked for it.
 */
export function storyListMeta(response: ListStoriesResponse, query: ListQueryOf<typeof STORY_LIST>): { [key: string]: JsonValue } | undefined {
  const meta: { [key: string]: JsonValue } = {};
  if (response.total !== undefined) {
    meta.total = response.total;
    meta.total_is_lower_bound = response.totalIsLowerBound;
  }
  if (query.facets.includes('tags')) meta.facets = { tags: Object.fromEntries(response.tagCounts.map((count) => [count.tagId, count.count])) };
  return Object.keys(meta).length === 0 ? undefined : meta;
}

/** POST /stories: left-out members are the service's defaults (a draft). */
export function storyCreateRequest({ attributes, relationships }: BodyOf<typeof STORY_WRITE>): MessageInitShape<typeof CreateStoryRequestSchema> {
  return {
    title: attributes.title ?? '',
    shortDescription: attributes.short_description ?? '',
    description: attributes.description ?? '',
    status: STATUS.toProto(attributes.status),
    contentRating: CONTENT_RATING.toProto(attributes.content_rating),
    published: attributes.published ?? false,
    tagIds: [...(relationships.tags ?? [])],
  };
}

/** PATCH /stories/:id: left-out members stay unchanged (UNSPECIFIED enums, unset tags). */
export function storyUpdateRequest(id: string, { attributes, relationships }: BodyOf<typeof STORY_WRITE>): MessageInitShape<typeof UpdateStoryRequestSchema> {
  return {
    id,
    title: attributes.title,
    shortDescription: attributes.short_description,
    description: attributes.description,
    status: STATUS.toProto(attributes.status),
    contentRating: CONTENT_RATING.toProto(attributes.content_rating),
    published: attributes.published,
    tags: relationships.tags === undefined ? undefined : { ids: [...relationships.tags] },
  };
}

/** The proto sort of a parsed sort order (always explicit: field and direction). */
function storySort(order: SortOrder<StorySortName> | undefined): MessageInitShape<typeof StorySortSchema> {
  if (order === undefined) return { field: SORT_FIELD.toProto(undefined) };
  return { field: SORT_FIELD.toProto(order.field), direction: order.descending ? SortDirection.DESCENDING : SortDirection.ASCENDING };
}

import type { MessageInitShape } from '@bufbuild/protobuf';
import { BLOG_POST_MAX_TAGS, BLOG_TAG_MAX_CHARS, normaliseBlogTag } from '@inkwell/limits';
import {
  BlogPostFilterSchema,
  BlogPostSchema,
  BlogPostSortFieldSchema,
  CreateBlogPostRequestSchema,
  ListBlogPostsRequestSchema,
  SortDirection,
  type BlogPost,
  type UpdateBlogPostRequestSchema,
} from '@inkwell/proto/blog';
import { z } from 'zod';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import {
  attributeTypes as at,
  cursorPagination,
  defineDocumentSpec,
  defineListSpec,
  defineResourceSchema,
  defineWriteSpec,
  filters,
  identifierIds,
  maxChars,
  maxItems,
  wantsField,
  writeValues,
  type FilterKind,
  type SparseFieldsets,
} from '../jsonapi/index.js';
import type { BodyOf, ListQueryOf } from '../routing/route-kinds.js';
import { protoEnumNames } from './proto-enum.js';
import { STORY_SCHEMA } from './story.resource.js';
import { optInAttributes } from './proto-resource.js';
import { timestampToApiDate } from './timestamps.js';
import { USER_SCHEMA } from './user.resource.js';

/** The JSON:API type of blog posts. */
export const BLOG_POST_TYPE = 'blog_post';

/**
 * The blog_post type (docs/api/blog.md, "The blog_post resource"). `content` and `content_html` are heavy (opt-in: returned only
 * when named in `fields[blog_post]`); `intro` is derived from the content. Site posts have no
 * author (`author` is null).
 */
export const BLOG_POST_SCHEMA = defineResourceSchema({
  type: BLOG_POST_TYPE,
  description: 'A blog post of a user, or a site post (`site_post: true`, read-only through the API).',
  attributes: {
    title: at.string(),
    content: at.string('Markdown; opt-in: only when named in fields[blog_post].'),
    content_html: at.html('content'),
    intro: at.string('The first ~300 characters of the text.'),
    tags: at.strings(),
    date_posted: at.dateTime(undefined, { nullable: true }),
    date_modified: at.dateTime(undefined, { nullable: true }),
    num_views: at.integer(undefined, { minimum: 0 }),
    site_post: at.boolean(),
    site_post_tag: at.string(undefined, { nullable: true }),
  },
  heavyAttributes: optInAttributes(BlogPostSchema),
  relationships: { author: { type: 'user', many: false }, stories: { type: 'story', many: true } },
});

const SORT_FIELD = protoEnumNames(BlogPostSortFieldSchema);

/** The sort fields of blog-post lists: date_posted, num_views, relevance. */
export const BLOG_POST_SORT_FIELDS = SORT_FIELD.names;

/**
 * `filter[tags]=a,b`: free-text blog tags (any of them matches), at most the `max_items` of
 * BlogPostFilter.tags (list
 * syntax). Put in the blog's normal form, deduplicated and sorted only so that equivalent filters
 * share a page token; which tags are valid is the blog service's to say (docs/api/blog.md).
 */
const MAX_FILTER_TAGS = maxItems(BlogPostFilterSchema.field.tags);
const blogTags: FilterKind<readonly string[]> = filters.custom<readonly string[]>(
  z.string().transform((text, ctx) => {
    const tags = text.split(',').map(normaliseBlogTag);
    if (tags.length > MAX_FILTER_TAGS) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_FILTER_TAGS} values are allowed` });
      return z.NEVER;
    }
    return [...new Set(tags)].sort();
  }),
  { syntax: `comma-separated blog tags of at most ${BLOG_TAG_MAX_CHARS} characters (posts with any of them match), at most ${MAX_FILTER_TAGS}; matched without regard to case`, example: 'writing,news' },
  (tags) => JSON.stringify(tags),
);

/** `filter[site_post_tag]=announcement`: one tag, in normal form (the blog service checks it). */
const sitePostTag: FilterKind<string> = filters.custom(
  z.string().transform(normaliseBlogTag),
  { syntax: `one site-post tag of at most ${BLOG_TAG_MAX_CHARS} characters, matched without regard to case`, example: 'announcement' },
  (tag) => tag,
);

const LIST_FILTERS = {
  ids: filters.ids(BlogPostFilterSchema.field.ids),
  author: filters.id(),
  tags: blogTags,
  site_post: filters.boolean(),
  site_post_tag: sitePostTag,
  date_posted: filters.dateRange(),
  hide_blocked: filters.boolean(),
};

const { author: _author, ...USER_LIST_FILTERS } = LIST_FILTERS;

/** Types reachable from a blog post, and what `include` offers on blog-post documents. */
const BLOG_POST_TYPES = [USER_SCHEMA, STORY_SCHEMA];
const BLOG_POST_INCLUDES = ['author', 'stories', 'stories.author'];

const SORT = { fields: BLOG_POST_SORT_FIELDS, default: '-date_posted', relevance: 'relevance' };
const PAGINATION = cursorPagination(ListBlogPostsRequestSchema.field.pageSize);
const SEARCH = { maxLength: maxChars(ListBlogPostsRequestSchema.field.query) };

/**
 * GET /blog-posts (docs/api/blog.md, "GET /blog-posts"): `query` over title, tags and content;
 * six filters; one sort field of date_posted/num_views/relevance (default `-date_posted`); cursor
 * pages (docs/api/lists.md, "Cursor pagination").
 */
export const BLOG_POST_LIST = defineListSpec({
  resource: BLOG_POST_SCHEMA,
  types: BLOG_POST_TYPES,
  includes: BLOG_POST_INCLUDES,
  filters: LIST_FILTERS,
  sort: SORT,
  search: SEARCH,
  pagination: PAGINATION,
});

/** GET /users/:id/blog-posts: the same list with the author fixed by the path (no `filter[author]`). */
export const USER_BLOG_POST_LIST = defineListSpec({
  resource: BLOG_POST_SCHEMA,
  types: BLOG_POST_TYPES,
  includes: BLOG_POST_INCLUDES,
  filters: USER_LIST_FILTERS,
  sort: SORT,
  search: SEARCH,
  pagination: PAGINATION,
});

/** GET/PATCH /blog-posts/:id and the response of POST: `include` and `fields[type]`. */
export const BLOG_POST_DOCUMENT = defineDocumentSpec({ resource: BLOG_POST_SCHEMA, types: BLOG_POST_TYPES, includes: BLOG_POST_INCLUDES });

/**
 * Most tag values a write body may carry at all (the proto's bound on the input's size). The rule
 * clients meet is the service's (at most BLOG_POST_MAX_TAGS distinct tags after normalisation),
 * which the API document states.
 */
const MAX_TAG_VALUES = maxItems(CreateBlogPostRequestSchema.field.tags);

/** The `tags` attribute of a write: an array of strings, described with the service's limits. */
const BLOG_POST_TAGS = z
  .array(z.string({ error: 'must be strings' }), { error: 'must be an array of strings' })
  .max(MAX_TAG_VALUES, `must have at most ${MAX_TAG_VALUES} values`)
  .meta({
    description: `At most ${BLOG_POST_MAX_TAGS} distinct tags of 1–${BLOG_TAG_MAX_CHARS} characters, without commas; each is trimmed, its spaces collapsed and lower-cased, and duplicates are kept once (more is 422 on \`/data/attributes/tags\`).`,
  });

/**
 * What POST /blog-posts accepts: title and content (required, limits of docs/api/blog.md, "Writing"), tags (an
 * array of strings; the service normalises them and checks count and length) and the `stories`
 * relationship (numeric story ids, at most the max_items of CreateBlogPostRequest.story_ids). Everything else is read-only.
 */
export const BLOG_POST_CREATE = defineWriteSpec({
  resource: BLOG_POST_SCHEMA,
  attributes: {
    title: writeValues.string(),
    content: writeValues.string(),
    tags: BLOG_POST_TAGS,
  },
  relationships: { stories: { type: 'story', many: true, id: identifierIds.numeric(), maxItems: maxItems(CreateBlogPostRequestSchema.field.storyIds) } },
  required: ['title', 'content'],
});

/** What PATCH /blog-posts/:id accepts: the same members as a create, none required. */
export const BLOG_POST_UPDATE = defineWriteSpec({
  resource: BLOG_POST_SCHEMA,
  attributes: BLOG_POST_CREATE.attributes,
  relationships: BLOG_POST_CREATE.relationships,
});

/**
 * Maps a blog.v1 BlogPost to its JSON:API resource: dates in ISO 8601 UTC, `content` and
 * `content_html` only when the service sent them (narrow with the request's fieldsets, which
 * is what asked for them), `site_post_tag` null when unset, `author` linkage (null for site
 * posts), the published `stories`; `links.self` = PUBLIC_BASE_URL/api/v1/blog-posts/<id>.
 */
export function toBlogPostResource(post: BlogPost, links: ApiLinks): ResourceObject {
  const attributes: Record<string, string | number | boolean | null | readonly string[]> = { title: post.title };
  if (post.content !== undefined) {
    attributes.content = post.content;
    attributes.content_html = post.contentHtml ?? '';
  }
  attributes.intro = post.intro;
  attributes.tags = post.tags;
  attributes.date_posted = timestampToApiDate(post.datePosted);
  attributes.date_modified = timestampToApiDate(post.dateModified);
  attributes.num_views = post.numViews;
  attributes.site_post = post.sitePost;
  attributes.site_post_tag = post.sitePostTag ?? null;
  return resourceObject(BLOG_POST_TYPE, post.id, attributes, {
    relationships: {
      author: { data: post.sitePost || post.authorId === '0' ? null : { type: 'user', id: post.authorId } },
      stories: { data: post.storyIds.map((id) => ({ type: 'story', id })) },
    },
    self: links.to(`/blog-posts/${post.id}`),
  });
}

/** The post of a single-post response, or null when there is none. */
export function blogPostOf({ blogPost }: { readonly blogPost?: BlogPost }, links: ApiLinks): ResourceObject | null {
  return blogPost === undefined ? null : toBlogPostResource(blogPost, links);
}

/** The post of a create's answer, which always carries it (a missing one is the service's fault: 500). */
export function createdBlogPostOf(response: { readonly blogPost?: BlogPost }, links: ApiLinks): ResourceObject {
  const resource = blogPostOf(response, links);
  if (resource === null) throw new Error('the blog service answered CreateBlogPost without the post');
  return resource;
}

/** The posts of a list response. */
export function blogPostsOf({ blogPosts }: { readonly blogPosts: readonly BlogPost[] }, links: ApiLinks): ResourceObject[] {
  return blogPosts.map((post) => toBlogPostResource(post, links));
}

/** Whether the response will carry content or content_html (opt-in): only then is the content fetched, and a view counted. */
export function wantsBlogPostContent(fields: SparseFieldsets): boolean {
  return wantsField(fields, BLOG_POST_SCHEMA, 'content') || wantsField(fields, BLOG_POST_SCHEMA, 'content_html');
}

/** What a blog-post list request says, for GET /blog-posts and GET /users/:id/blog-posts (which has no `filter[author]`). */
export type BlogPostListQuery = Pick<ListQueryOf<typeof BLOG_POST_LIST>, 'filters' | 'search' | 'sort' | 'fields'>;

/**
 * A blog-post list for the blog service: the search text, the filters (`authorId`, from the
 * path, wins over `filter[author]`), the sort (ties by id are the service's) and whether the
 * content is wanted.
 */
export function blogPostListRequest(query: BlogPostListQuery, authorId: string | undefined): MessageInitShape<typeof ListBlogPostsRequestSchema> {
  const filter = query.filters;
  const author = authorId ?? filter.author;
  const sort = query.sort;
  return {
    query: query.search ?? '',
    filter: {
      ids: [...(filter.ids ?? [])],
      ...(author === undefined ? {} : { authorId: author }),
      tags: [...(filter.tags ?? [])],
      ...(filter.site_post === undefined ? {} : { sitePost: filter.site_post }),
      ...(filter.site_post_tag === undefined ? {} : { sitePostTag: filter.site_post_tag }),
      ...(filter.date_posted?.min === undefined ? {} : { datePostedMin: filter.date_posted.min }),
      ...(filter.date_posted?.max === undefined ? {} : { datePostedMax: filter.date_posted.max }),
    },
    sort: sort === undefined ? undefined : { field: SORT_FIELD.toProto(sort.field), direction: sort.descending ? SortDirection.DESCENDING : SortDirection.ASCENDING },
    includeContent: wantsBlogPostContent(query.fields),
  };
}

/** POST /blog-posts. */
export function blogPostCreateRequest({ attributes, relationships }: BodyOf<typeof BLOG_POST_CREATE>): MessageInitShape<typeof CreateBlogPostRequestSchema> {
  return {
    title: attributes.title ?? '',
    content: attributes.content ?? '',
    tags: [...(attributes.tags ?? [])],
    storyIds: [...(relationships.stories ?? [])],
  };
}

/** PATCH /blog-posts/:id: left-out members stay unchanged. */
export function blogPostUpdateRequest(id: string, { attributes, relationships }: BodyOf<typeof BLOG_POST_UPDATE>): MessageInitShape<typeof UpdateBlogPostRequestSchema> {
  const { title, content, tags } = attributes;
  const stories = relationships.stories;
  return {
    id,
    ...(title === undefined ? {} : { title }),
    ...(content === undefined ? {} : { content }),
    ...(tags === undefined ? {} : { tags: { tags: [...tags] } }),
    ...(stories === undefined ? {} : { stories: { storyIds: [...stories] } }),
  };
}

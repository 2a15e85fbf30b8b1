import { isAppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import { BLOG_QUERY_MAX_CHARS, BLOG_TAG_MAX_CHARS, normaliseBlogTag } from '@inkwell/limits';
import { BlogPostSortField, SortDirection, type BlogPost, type BlogService } from '@inkwell/proto/blog';
import { z } from 'zod';
import type { ApiLinks } from '../jsonapi/api-links.js';
import {
  defineDocumentSpec,
  defineListSpec,
  filters,
  MAX_LIST_VALUES,
  parseCreateBody,
  parseDocumentQuery,
  parseListQuery,
  parseUpdateBody,
  wantsField,
  type CursorPaginationSpec,
  type DocumentResponder,
  type FilterKind,
  type FilterSpecs,
  type ListSpec,
  type ParsedFilters,
  type SortOrder,
  type SortSpec,
  type SparseFieldsets,
} from '../lists/index.js';
import { BLOG_POST_CREATE, BLOG_POST_SCHEMA, BLOG_POST_UPDATE, toBlogPostResource } from '../resources/blog-post.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { defineRoute, type ApiRequest, type ApiResponse, type RouteDefinition } from '../routing/route.types.js';

/** What the blog-post routes need: the blog client, the link builder and the document responder. */
export interface BlogPostsRoutesDeps {
  readonly blog: GrpcClient<typeof BlogService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}


/**
 * `filter[tags]=a,b`: free-text blog tags (any of them matches), at most MAX_LIST_VALUES (list
 * syntax). Put in the blog's normal form, deduplicated and sorted only so that equivalent filters
 * share a page token; which tags are valid is the blog service's to say (docs/api/blog.md).
 */
const blogTags: FilterKind<readonly string[]> = filters.custom<readonly string[]>(
  z.string().transform((text, ctx) => {
    const tags = text.split(',').map(normaliseBlogTag);
    if (tags.length > MAX_LIST_VALUES) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_LIST_VALUES} values are allowed` });
      return z.NEVER;
    }
    return [...new Set(tags)].sort();
  }),
  { syntax: `comma-separated blog tags of at most ${BLOG_TAG_MAX_CHARS} characters (posts with any of them match), at most ${MAX_LIST_VALUES}; matched without regard to case`, example: 'writing,news' },
  (tags) => JSON.stringify(tags),
);

/** `filter[site_post_tag]=announcement`: one tag, in normal form (the blog service checks it). */
const sitePostTag: FilterKind<string> = filters.custom(
  z.string().transform(normaliseBlogTag),
  { syntax: `one site-post tag of at most ${BLOG_TAG_MAX_CHARS} characters, matched without regard to case`, example: 'announcement' },
  (tag) => tag,
);

const LIST_FILTERS = {
  ids: filters.ids(),
  author: filters.id(),
  tags: blogTags,
  site_post: filters.boolean(),
  site_post_tag: sitePostTag,
  date_posted: filters.dateRange(),
};

const { author: _author, ...USER_LIST_FILTERS } = LIST_FILTERS;

/** Types reachable from a blog post, and what `include` offers on blog-post documents. */
const BLOG_POST_TYPES = [USER_SCHEMA, STORY_SCHEMA];
const BLOG_POST_INCLUDES = ['author', 'stories', 'stories.author'];

const SORT_FIELD_NAMES = ['date_posted', 'num_views', 'relevance'] as const;
type SortField = (typeof SORT_FIELD_NAMES)[number];
const SORT: SortSpec<SortField> = { fields: SORT_FIELD_NAMES, default: '-date_posted', relevance: 'relevance' };
const PAGINATION = { kind: 'cursor', defaultSize: 20, maxSize: 100 } as const;

/**
 * GET /blog-posts (docs/api/blog.md, "GET /blog-posts"): `query` over title, tags and content;
 * six filters; one sort field of date_posted/num_views/relevance (default `-date_posted`); cursor
 * pages of 20 (at most 100).
 */
export const BLOG_POST_LIST = defineListSpec({
  resource: BLOG_POST_SCHEMA,
  types: BLOG_POST_TYPES,
  includes: BLOG_POST_INCLUDES,
  filters: LIST_FILTERS,
  sort: SORT,
  search: { maxLength: BLOG_QUERY_MAX_CHARS },
  pagination: PAGINATION,
});

/** GET /users/:id/blog-posts: the same list with the author fixed by the path (no `filter[author]`). */
export const USER_BLOG_POST_LIST = defineListSpec({
  resource: BLOG_POST_SCHEMA,
  types: BLOG_POST_TYPES,
  includes: BLOG_POST_INCLUDES,
  filters: USER_LIST_FILTERS,
  sort: SORT,
  search: { maxLength: BLOG_QUERY_MAX_CHARS },
  pagination: PAGINATION,
});

/** GET/PATCH /blog-posts/:id and the response of POST: `include` and `fields[type]`. */
const BLOG_POST_DOCUMENT = defineDocumentSpec({ resource: BLOG_POST_SCHEMA, types: BLOG_POST_TYPES, includes: BLOG_POST_INCLUDES });


/**
 * The blog-post endpoints (paths relative to /api/v1). Reads need only a valid token; writes act
 * as the signed-in user with write_blog_posts (docs/api/blog.md, "Writing"), and only the author may change or
 * delete a post; site posts answer 403 `site_post_immutable`. `/users/:id/blog-posts` runs the
 * same list code as `/blog-posts?filter[author]=:id` (`me` works).
 */
export function blogPostsRoutes({ blog, links, documents }: BlogPostsRoutesDeps): RouteDefinition[] {
  const toResource = (post: BlogPost | undefined) => (post === undefined ? null : toBlogPostResource(post, links));

  async function list<F extends FilterSpecs>(request: ApiRequest, spec: ListSpec<F, SortField, CursorPaginationSpec>, authorId: string | undefined): Promise<ApiResponse> {
    const query = parseListQuery(spec, request.query);
    const position = await documents.cursorStart(request, query);
    const { blogPosts, nextAfter } = await blog.listBlogPosts(
      {
        query: query.search ?? '',
        // Both specs' filters are among LIST_FILTERS.
        filter: toProtoFilter(query.filters as ParsedFilters<typeof LIST_FILTERS>, authorId),
        sort: toProtoSort(query.sort),
        pageSize: query.page.size,
        after: position.after,
        includeContent: wantsContent(query.fields),
      },
      { caller: request.caller },
    );
    return documents.cursorPage(request, query, position, blogPosts.map((post) => toBlogPostResource(post, links)), nextAfter);
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/blog-posts',
      doc: { summary: 'Search and list blog posts.', query: BLOG_POST_LIST },
      handler: (request) => list(request, BLOG_POST_LIST, undefined),
    }),
    defineRoute({
      method: 'GET',
      path: '/users/:id/blog-posts',
      doc: { summary: "A user's blog posts (as GET /blog-posts?filter[author]=:id).", query: USER_BLOG_POST_LIST },
      params: { id: 'user' },
      handler: (request) => list(request, USER_BLOG_POST_LIST, request.params.id),
    }),
    defineRoute({
      method: 'GET',
      path: '/blog-posts/:id',
      doc: { summary: 'One blog post; its content only when named in fields[blog_post] (counts a view).', query: BLOG_POST_DOCUMENT },
      async handler(request) {
        const query = parseDocumentQuery(BLOG_POST_DOCUMENT, request.query);
        const { blogPost } = await blog.getBlogPost({ id: request.params.id, includeContent: wantsContent(query.fields) }, { caller: request.caller });
        return documents.resource(request, query, toResource(blogPost));
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/blog-posts',
      doc: { summary: 'Post a blog post as the signed-in user.', query: BLOG_POST_DOCUMENT, body: BLOG_POST_CREATE, nullableData: true },
      scope: 'write_blog_posts',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(BLOG_POST_DOCUMENT, request.query);
        const body = parseCreateBody(BLOG_POST_CREATE, request.body);
        const { blogPost } = await blog.createBlogPost(
          {
            title: body.attributes.title ?? '',
            content: body.attributes.content ?? '',
            tags: [...(body.attributes.tags ?? [])],
            storyIds: [...(body.relationships.stories ?? [])],
          },
          { caller: request.caller },
        );
        const resource = toResource(blogPost);
        const self = resource?.links?.self;
        return documents.resource(request, query, resource, { status: 201, ...(self === undefined ? {} : { headers: { Location: self }, self }) });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/blog-posts/:id',
      doc: { summary: 'Change a blog post of yours (not a site post).', query: BLOG_POST_DOCUMENT, body: BLOG_POST_UPDATE, errors: ['site_post_immutable'] },
      scope: 'write_blog_posts',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(BLOG_POST_DOCUMENT, request.query);
        const body = await parseOrExplain(() => parseUpdateBody(BLOG_POST_UPDATE, request.body, request.params.id), blog, request.params.id, request.caller);
        const { title, content, tags } = body.attributes;
        const stories = body.relationships.stories;
        const { blogPost } = await blog.updateBlogPost(
          {
            id: request.params.id,
            ...(title === undefined ? {} : { title }),
            ...(content === undefined ? {} : { content }),
            ...(tags === undefined ? {} : { tags: { tags: [...tags] } }),
            ...(stories === undefined ? {} : { stories: { storyIds: [...stories] } }),
          },
          { caller: request.caller },
        );
        return documents.resource(request, query, toResource(blogPost));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/blog-posts/:id',
      doc: { summary: 'Delete a blog post of yours (not a site post).', errors: ['site_post_immutable'] },
      scope: 'write_blog_posts',
      requiresUser: true,
      async handler(request) {
        await blog.deleteBlogPost({ id: request.params.id }, { caller: request.caller });
        return { status: 204 };
      },
    }),
  ];
}

/**
 * Parses a PATCH body; when it is bad, asks the blog service (validate_only) what the request would
 * have got for a good one first, so the order stays 404 → 403 (site post, not the author) → body
 * errors whatever the body (docs/api/blog.md).
 */
async function parseOrExplain<T>(parse: () => T, blog: GrpcClient<typeof BlogService>, id: string, caller: CallerContext): Promise<T> {
  try {
    return parse();
  } catch (error) {
    if (!isAppError(error)) throw error;
    // The blog service owns who may change a post: it refuses first, or the body error stands.
    await blog.updateBlogPost({ id, validateOnly: true }, { caller });
    throw error;
  }
}

/** Whether the response will carry content or content_html (opt-in): only then is the content fetched, and a view counted. */
function wantsContent(fields: SparseFieldsets): boolean {
  return wantsField(fields, BLOG_POST_SCHEMA, 'content') || wantsField(fields, BLOG_POST_SCHEMA, 'content_html');
}

/** The parsed filters for the blog service; `authorId` (from the path) wins over `filter[author]`. */
function toProtoFilter(filter: ParsedFilters<typeof LIST_FILTERS>, authorId: string | undefined) {
  const author = authorId ?? filter.author;
  return {
    ids: [...(filter.ids ?? [])],
    ...(author === undefined ? {} : { authorId: author }),
    tags: [...(filter.tags ?? [])],
    ...(filter.site_post === undefined ? {} : { sitePost: filter.site_post }),
    ...(filter.site_post_tag === undefined ? {} : { sitePostTag: filter.site_post_tag }),
    ...(filter.date_posted?.min === undefined ? {} : { datePostedMin: filter.date_posted.min }),
    ...(filter.date_posted?.max === undefined ? {} : { datePostedMax: filter.date_posted.max }),
  };
}

const SORT_FIELDS: Readonly<Record<SortField, BlogPostSortField>> = {
  date_posted: BlogPostSortField.DATE_POSTED,
  num_views: BlogPostSortField.NUM_VIEWS,
  relevance: BlogPostSortField.RELEVANCE,
};

/** The list's sort for the blog service (ties by id are the service's). */
function toProtoSort(sort: SortOrder<SortField> | undefined) {
  if (sort === undefined) return undefined;
  return { field: SORT_FIELDS[sort.field], direction: sort.descending ? SortDirection.DESCENDING : SortDirection.ASCENDING };
}

import type { GrpcClient } from '@inkwell/grpc';
import { BLOG_QUERY_MAX_CHARS, BLOG_TAG_MAX_CHARS, normaliseBlogTag } from '@inkwell/limits';
import type { BlogService } from '@inkwell/proto/blog';
import { z } from 'zod';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineDocumentSpec, defineListSpec, filters, MAX_LIST_VALUES, type DocumentResponder, type FilterKind } from '../jsonapi/index.js';
import {
  BLOG_POST_CREATE,
  BLOG_POST_SCHEMA,
  BLOG_POST_SORT_FIELDS,
  BLOG_POST_UPDATE,
  blogPostCreateRequest,
  blogPostListRequest,
  blogPostOf,
  createdBlogPostOf,
  blogPostsOf,
  blogPostUpdateRequest,
  wantsBlogPostContent,
} from '../resources/blog-post.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import type { RouteDefinition } from '../routing/route.types.js';

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

const SORT = { fields: BLOG_POST_SORT_FIELDS, default: '-date_posted', relevance: 'relevance' };
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
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/blog-posts',
      doc: { summary: 'Search and list blog posts.' },
      query: BLOG_POST_LIST,
      toRequest: ({ query }) => blogPostListRequest(query, undefined),
      rpc: (request, options) => blog.listBlogPosts(request, options),
      toResources: blogPostsOf,
    }),
    route.list({
      path: '/users/:id/blog-posts',
      doc: { summary: "A user's blog posts (as GET /blog-posts?filter[author]=:id)." },
      params: { id: 'user' },
      query: USER_BLOG_POST_LIST,
      toRequest: ({ params, query }) => blogPostListRequest(query, params.id),
      rpc: (request, options) => blog.listBlogPosts(request, options),
      toResources: blogPostsOf,
    }),
    route.read({
      path: '/blog-posts/:id',
      doc: { summary: 'One blog post; its content only when named in fields[blog_post] (counts a view).' },
      query: BLOG_POST_DOCUMENT,
      toRequest: ({ params, query }) => ({ id: params.id, includeContent: wantsBlogPostContent(query.fields) }),
      rpc: (request, options) => blog.getBlogPost(request, options),
      toResource: blogPostOf,
    }),
    route.create({
      path: '/blog-posts',
      doc: { summary: 'Post a blog post as the signed-in user.' },
      scope: 'write_blog_posts',
      requiresUser: true,
      query: BLOG_POST_DOCUMENT,
      body: BLOG_POST_CREATE,
      toRequest: ({ body }) => blogPostCreateRequest(body),
      rpc: (request, options) => blog.createBlogPost(request, options),
      toResource: createdBlogPostOf,
    }),
    route.update({
      path: '/blog-posts/:id',
      doc: { summary: 'Change a blog post of yours (not a site post).', errors: ['site_post_immutable'] },
      scope: 'write_blog_posts',
      requiresUser: true,
      query: BLOG_POST_DOCUMENT,
      body: BLOG_POST_UPDATE,
      toRequest: ({ params, body }) => blogPostUpdateRequest(params.id, body),
      rpc: (request, options) => blog.updateBlogPost(request, options),
      toResource: blogPostOf,
      // The blog service owns who may change a post: asked first (validate_only), it refuses
      // before a bad body is answered, so the order stays 404 → 403 → body errors (docs/api/blog.md).
      beforeBodyRefusal: (params, options) => blog.updateBlogPost({ id: params.id, validateOnly: true }, options),
    }),
    route.command({
      method: 'DELETE',
      path: '/blog-posts/:id',
      doc: { summary: 'Delete a blog post of yours (not a site post).', errors: ['site_post_immutable'] },
      scope: 'write_blog_posts',
      requiresUser: true,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: (request, options) => blog.deleteBlogPost(request, options),
    }),
  ];
}

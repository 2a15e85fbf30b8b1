import type { GrpcClient } from '@inkwell/grpc';
import { BlogService } from '@inkwell/proto/blog';
import type { RelationsService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { DocumentResponder } from '../jsonapi/index.js';
import {
  BLOG_POST_CREATE,
  BLOG_POST_DOCUMENT,
  BLOG_POST_LIST,
  BLOG_POST_UPDATE,
  blogPostCreateRequest,
  blogPostListRequest,
  blogPostOf,
  createdBlogPostOf,
  blogPostsOf,
  blogPostUpdateRequest,
  USER_BLOG_POST_LIST,
  wantsBlogPostContent,
} from '../resources/blog-post.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';
import { hidingRpc } from './hidden-content.js';

/** What the blog-post routes need: the blog client, the link builder and the document responder. */
export interface BlogPostsRoutesDeps {
  readonly blog: GrpcClient<typeof BlogService>;
  /** Asked whom the caller blocks, for filter[hide_blocked] (docs/api/safety.md). */
  readonly relations: GrpcClient<typeof RelationsService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/**
 * The blog-post endpoints (paths relative to /api/v1). Reads need only a valid token; writes act
 * as the signed-in user with write_blog_posts (docs/api/blog.md, "Writing"), and only the author may change or
 * delete a post; site posts answer 403 `site_post_immutable`. `/users/:id/blog-posts` runs the
 * same list code as `/blog-posts?filter[author]=:id` (`me` works).
 */
export function blogPostsRoutes({ blog, relations, links, documents }: BlogPostsRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  // With filter[hide_blocked]=true, the posts of the users the caller blocks leave the list (docs/api/safety.md, "Blocking").
  const listBlogPosts = hidingRpc(BlogService.method.listBlogPosts, relations, { mutes: false }, (request, hidden, options) =>
    blog.listBlogPosts({ ...request, hiddenAuthorIds: hidden.authorIds }, options),
  );
  return [
    route.list({
      path: '/blog-posts',
      doc: { summary: 'Search and list blog posts.' },
      query: BLOG_POST_LIST,
      toRequest: ({ query }) => ({ ...blogPostListRequest(query, undefined), hideBlocked: query.filters.hide_blocked }),
      rpc: listBlogPosts,
      toResources: blogPostsOf,
    }),
    route.list({
      path: '/users/:id/blog-posts',
      doc: { summary: "A user's blog posts (as GET /blog-posts?filter[author]=:id)." },
      params: { id: 'user' },
      query: USER_BLOG_POST_LIST,
      toRequest: ({ params, query }) => ({ ...blogPostListRequest(query, params.id), hideBlocked: query.filters.hide_blocked }),
      rpc: listBlogPosts,
      toResources: blogPostsOf,
    }),
    route.read({
      path: '/blog-posts/:id',
      doc: { summary: 'One blog post; its content only when named in fields[blog_post] (counts a view).' },
      query: BLOG_POST_DOCUMENT,
      toRequest: ({ params, query }) => ({ id: params.id, includeContent: wantsBlogPostContent(query.fields) }),
      rpc: rpcOf(blog, BlogService.method.getBlogPost),
      toResource: blogPostOf,
    }),
    route.create({
      path: '/blog-posts',
      doc: { summary: 'Post a blog post as the signed-in user.' },
      query: BLOG_POST_DOCUMENT,
      body: BLOG_POST_CREATE,
      toRequest: ({ body }) => blogPostCreateRequest(body),
      rpc: rpcOf(blog, BlogService.method.createBlogPost),
      toResource: createdBlogPostOf,
    }),
    route.update({
      path: '/blog-posts/:id',
      doc: { summary: 'Change a blog post of yours (not a site post).', errors: ['site_post_immutable'] },
      query: BLOG_POST_DOCUMENT,
      body: BLOG_POST_UPDATE,
      toRequest: ({ params, body }) => blogPostUpdateRequest(params.id, body),
      rpc: rpcOf(blog, BlogService.method.updateBlogPost),
      toResource: blogPostOf,
      // The blog service owns who may change a post: asked first (validate_only), it refuses
      // before a bad body is answered, so the order stays 404 → 403 → body errors (docs/api/blog.md).
      beforeBodyRefusal: (params, options) => blog.updateBlogPost({ id: params.id, validateOnly: true }, options),
    }),
    route.command({
      method: 'DELETE',
      path: '/blog-posts/:id',
      doc: { summary: 'Delete a blog post of yours (not a site post).', errors: ['site_post_immutable'] },
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(blog, BlogService.method.deleteBlogPost),
    }),
  ];
}

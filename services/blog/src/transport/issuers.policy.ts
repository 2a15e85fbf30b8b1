import type { IssuerTable } from '@inkwell/grpc';
import type { BlogService } from '@inkwell/proto/blog';

/** Only the gateway, which authenticated the API caller itself: no other process calls blog. */
const GATEWAY = ['gateway'] as const;

/**
 * Which issuer may call each RPC of the blog service (docs/api/foundation.md, "Internal calls"):
 * every one, the gateway only (the blog CLI works on the database directly). A verified call from
 * another issuer is PERMISSION_DENIED.
 */
export const BLOG_ISSUERS: IssuerTable<typeof BlogService> = {
  getBlogPost: GATEWAY,
  listBlogPosts: GATEWAY,
  createBlogPost: GATEWAY,
  updateBlogPost: GATEWAY,
  deleteBlogPost: GATEWAY,
};

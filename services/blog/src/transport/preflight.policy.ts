import type { PreflightTable } from '@inkwell/grpc';
import type { BlogService } from '@inkwell/proto/blog';
import type { BlogPostService } from '../services/blog-post.service.js';

/**
 * Who may write comes before what is written (docs/api/blog.md, "Writing"): a PATCH whose values
 * break their rules is still refused first for an unknown post (`404`), a site post
 * (`403 site_post_immutable`) and someone else's post (`403 forbidden`).
 */
export function blogPreflight(posts: BlogPostService): PreflightTable<typeof BlogService> {
  return {
    updateBlogPost: async (request, ctx) => {
      await posts.checkEditable(request.id, ctx.caller);
    },
  };
}

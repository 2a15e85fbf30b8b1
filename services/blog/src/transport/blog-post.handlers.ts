import type { ServiceImpl } from '@inkwell/grpc';
import type { BlogService } from '@inkwell/proto/blog';
import type { BlogPostService } from '../services/blog-post.service.js';
import { fromListRequest, fromUpdateRequest, toProtoBlogPost } from './blog-post.mappers.js';

/** gRPC handlers of BlogService: decode → one service call → encode. */
export function blogPostHandlers(posts: BlogPostService): ServiceImpl<typeof BlogService> {
  return {
    async getBlogPost(request, ctx) {
      return { blogPost: toProtoBlogPost(await posts.getBlogPost(request.id, request.includeContent, ctx.caller)) };
    },
    async listBlogPosts(request, ctx) {
      const page = await posts.listBlogPosts(fromListRequest(request), ctx.caller);
      return { blogPosts: page.posts.map(toProtoBlogPost), nextAfter: page.nextAfter };
    },
    async createBlogPost(request, ctx) {
      const input = { title: request.title, content: request.content, tags: request.tags, storyIds: request.storyIds };
      return { blogPost: toProtoBlogPost(await posts.createBlogPost(input, ctx.caller, ctx.signal)) };
    },
    async updateBlogPost(request, ctx) {
      if (request.validateOnly) return { blogPost: toProtoBlogPost(await posts.checkEditable(request.id, ctx.caller)) };
      return { blogPost: toProtoBlogPost(await posts.updateBlogPost(request.id, fromUpdateRequest(request), ctx.caller, ctx.signal)) };
    },
    async deleteBlogPost(request, ctx) {
      await posts.deleteBlogPost(request.id, ctx.caller);
      return {};
    },
  };
}

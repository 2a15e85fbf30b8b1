import { createGrpcServer, type AssertionVerifier, type GrpcServer, type MetricsRegistry } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { BlogService } from '@inkwell/proto/blog';
import type { BlogPostService } from './services/blog-post.service.js';
import { blogPostHandlers } from './transport/blog-post.handlers.js';
import { BLOG_ISSUERS } from './transport/issuers.policy.js';
import { blogPreflight } from './transport/preflight.policy.js';

/** What the blog gRPC server needs, already constructed. */
export interface BlogServerDeps {
  /** Where the server records the RED metrics of its calls (main.ts serves them on /metrics); none in most tests. */
  metrics?: MetricsRegistry | undefined;
  logger: Logger;
  /** Verifies each call's caller assertion (createInternalAuth('blog', …).verifier in main.ts). */
  verifier: AssertionVerifier;
  posts: BlogPostService;
}

/** Builds the blog gRPC server (BlogService + health) without listening: tests start it on port 0. Each RPC accepts only the issuers of BLOG_ISSUERS; a PATCH authorizes before its rules (blogPreflight). */
export function createBlogServer(deps: BlogServerDeps): GrpcServer {
  return createGrpcServer({ logger: deps.logger, verifier: deps.verifier, metrics: deps.metrics }).add(BlogService, blogPostHandlers(deps.posts), {
    issuers: BLOG_ISSUERS,
    preflight: blogPreflight(deps.posts),
  });
}

import { createGrpcServer, type AssertionVerifier, type GrpcServer, type MetricsRegistry } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { StoriesService } from '@inkwell/proto/stories';
import { STORIES_ISSUERS } from './transport/issuers.policy.js';
import { storiesPreflight } from './transport/preflight.policy.js';
import { storiesHandlers, type StoriesHandlerDeps } from './transport/story.handlers.js';

/** What the stories gRPC server needs, already constructed. */
export interface StoriesServerDeps extends StoriesHandlerDeps {
  /** Where the server records the RED metrics of its calls (main.ts serves them on /metrics); none in most tests. */
  metrics?: MetricsRegistry | undefined;
  logger: Logger;
  /** Verifies each call's caller assertion (createInternalAuth('stories', …).verifier in main.ts). */
  verifier: AssertionVerifier;
}

/** Builds the stories gRPC server (StoriesService + health) without listening: tests start it on port 0. Each RPC accepts only the issuers of STORIES_ISSUERS; writes about a story or chapter authorize before their rules (storiesPreflight). */
export function createStoriesServer(deps: StoriesServerDeps): GrpcServer {
  return createGrpcServer({ logger: deps.logger, verifier: deps.verifier, metrics: deps.metrics }).add(StoriesService, storiesHandlers(deps), {
    issuers: STORIES_ISSUERS,
    preflight: storiesPreflight(deps),
  });
}

import { createGrpcServer, type AssertionVerifier, type GrpcServer, type MetricsRegistry } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { BookshelvesService } from '@inkwell/proto/bookshelves';
import { bookshelfHandlers, type BookshelfHandlerDeps } from './transport/bookshelf.handlers.js';
import { BOOKSHELVES_ISSUERS } from './transport/issuers.policy.js';
import { bookshelvesPreflight } from './transport/preflight.policy.js';

/** What the bookshelves gRPC server needs, already constructed. */
export interface BookshelvesServerDeps extends BookshelfHandlerDeps {
  /** Where the server records the RED metrics of its calls (main.ts serves them on /metrics); none in most tests. */
  metrics?: MetricsRegistry | undefined;
  logger: Logger;
  /** Verifies each call's caller assertion (createInternalAuth('bookshelves', …).verifier in main.ts). */
  verifier: AssertionVerifier;
}

/** Builds the bookshelves gRPC server (BookshelvesService + health) without listening: tests start it on port 0. Each RPC accepts only the issuers of BOOKSHELVES_ISSUERS; shelf writes authorize before their rules (bookshelvesPreflight). */
export function createBookshelvesServer(deps: BookshelvesServerDeps): GrpcServer {
  return createGrpcServer({ logger: deps.logger, verifier: deps.verifier, metrics: deps.metrics }).add(BookshelvesService, bookshelfHandlers(deps), {
    issuers: BOOKSHELVES_ISSUERS,
    preflight: bookshelvesPreflight(deps.shelves),
  });
}

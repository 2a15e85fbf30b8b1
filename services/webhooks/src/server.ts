import { createGrpcServer, type AssertionVerifier, type GrpcServer, type MetricsRegistry } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { WebhookService } from '@inkwell/proto/webhooks';
import type { EndpointService } from './services/endpoint.service.js';
import { WEBHOOKS_ISSUERS } from './transport/issuers.policy.js';
import { webhookHandlers } from './transport/webhook.handlers.js';

/** What the webhooks gRPC server needs, already constructed. */
export interface WebhooksServerDeps {
  metrics?: MetricsRegistry | undefined;
  logger: Logger;
  /** Verifies each call's caller assertion (createInternalAuth('webhooks', …).verifier in main.ts). */
  verifier: AssertionVerifier;
  endpoints: EndpointService;
}

/** Builds the webhooks gRPC server (WebhookService + health) without listening: tests start it on port 0. Each RPC accepts only the issuers of WEBHOOKS_ISSUERS. */
export function createWebhooksServer(deps: WebhooksServerDeps): GrpcServer {
  return createGrpcServer({ logger: deps.logger, verifier: deps.verifier, metrics: deps.metrics }).add(WebhookService, webhookHandlers(deps.endpoints), { issuers: WEBHOOKS_ISSUERS });
}

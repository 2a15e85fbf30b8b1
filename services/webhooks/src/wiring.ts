import type { Logger } from '@inkwell/logging';
import type { GrpcClient, MetricsRegistry } from '@inkwell/grpc';
import type { UsersService } from '@inkwell/proto/users';
import type pg from 'pg';
import { AddressPolicy } from './delivery/address-guard.js';
import { DeliveryWorker, type DeliveryWorkerLimits } from './delivery/delivery-worker.js';
import { deliveryMetrics } from './delivery/delivery-metrics.js';
import { listenForDeliveries } from './delivery/delivery-wakeups.js';
import { startLogRetention } from './delivery/log-retention.js';
import type { Resolver } from './delivery/guarded-lookup.js';
import { WebhookSender } from './delivery/webhook-sender.js';
import { signatureHeaders } from './delivery/webhook-signer.js';
import type { RetrySchedule } from './domain/retry-schedule.js';
import { AppDirectoryRepository } from './repositories/app-directory.repository.js';
import { DeliveryRepository } from './repositories/delivery.repository.js';
import { EndpointRepository } from './repositories/endpoint.repository.js';
import { newSigningSecret, SecretBox } from './secrets/secret-box.js';
import { DeliveryService } from './services/delivery.service.js';
import { EndpointService } from './services/endpoint.service.js';

/** What {@link wireWebhooks} builds from. */
export interface WebhooksWiringInput {
  pool: pg.Pool;
  users: GrpcClient<typeof UsersService>;
  logger: Logger;
  secretKey: Buffer;
  allowedHosts: readonly string[];
  schedule: RetrySchedule;
  attemptTimeoutMs: number;
  limits: Partial<DeliveryWorkerLimits>;
  /** Resolves delivery hosts (default: the system resolver); tests give their own. */
  resolver?: Resolver;
  /** Where the delivery metrics go (main.ts: the service's /metrics). */
  metrics?: MetricsRegistry;
}

/** The parts of a webhooks process: shared by main.ts and the tests' harness, so both wire it the same way. */
export interface WebhooksParts {
  apps: AppDirectoryRepository;
  endpoints: EndpointService;
  worker: DeliveryWorker;
  sender: WebhookSender;
  /** Starts the hourly pruning of the delivery log; returns what stops it. */
  startRetention: () => () => void;
}

/** Repositories → services → worker of the webhooks service. */
export function wireWebhooks(input: WebhooksWiringInput): WebhooksParts {
  const box = new SecretBox(input.secretKey);
  const sender = new WebhookSender({ policy: new AddressPolicy(input.allowedHosts), timeoutMs: input.attemptTimeoutMs, ...(input.resolver ? { resolver: input.resolver } : {}) });
  const apps = new AppDirectoryRepository(input.users);
  const deliveries = new DeliveryRepository(input.pool);
  const endpoints = new EndpointService({
    endpoints: new EndpointRepository(input.pool),
    deliveries,
    apps,
    secrets: {
      create() {
        const secret = newSigningSecret();
        return { secret, sealed: box.seal(secret) };
      },
    },
    urlRefusal: (url) => sender.refusal(url),
  });
  const service = new DeliveryService({
    deliveries,
    apps,
    sender,
    secrets: box,
    sign: signatureHeaders,
    schedule: input.schedule,
    logger: input.logger,
    ...(input.metrics ? { observer: deliveryMetrics(input.metrics) } : {}),
  });
  const worker = new DeliveryWorker({ deliveries, service, logger: input.logger, limits: input.limits, wakeups: (wake) => listenForDeliveries(input.pool, input.logger, wake) });
  return { apps, endpoints, worker, sender, startRetention: () => startLogRetention(deliveries, input.logger) };
}

import { createGrpcClient } from '@inkwell/grpc';
import { UsersService } from '@inkwell/proto/users';
import { Topics } from '@inkwell/proto/topics';
import { runService } from '@inkwell/service';
import { loadWebhooksConfig } from './config.js';
import { createEventIntakeConsumer } from './consumers/event-intake.consumer.js';
import { WEBHOOKS_MIGRATIONS, WEBHOOKS_SCHEMA } from './schema.js';
import { createWebhooksServer } from './server.js';
import { wireWebhooks } from './wiring.js';

/** Longest wait of the idle delivery worker before it looks for retries that fell due (docs/api/webhooks.md, "Design"). */
const IDLE_POLL_MS = 1_000;

/**
 * Composition root of the webhooks service (docs/api/webhooks.md, "Design"): the endpoint RPCs,
 * the intake consumer that queues deliveries from the other services' topics, and the delivery
 * worker, the only workload that makes outbound internet requests.
 */
runService({
  name: 'webhooks',
  prefix: 'WEBHOOKS',
  loadConfig: loadWebhooksConfig,
  database: { schema: WEBHOOKS_SCHEMA, migrations: WEBHOOKS_MIGRATIONS },
  topics: [Topics.webhooksEndpoint],
  async wire({ config, logger, auth, pool, kafka, metrics, tls }) {
    const users = createGrpcClient(UsersService, config.USERS_SERVICE_ADDR, { defaultDeadlineMs: config.GRPC_DEADLINE_MS, signer: auth.signer, tls });
    const parts = wireWebhooks({
      pool,
      users,
      logger,
      metrics,
      secretKey: config.WEBHOOK_SECRET_KEY,
      allowedHosts: config.WEBHOOK_ALLOWED_HOSTS,
      schedule: { baseMs: config.WEBHOOK_RETRY_BASE_MS, maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS, windowMs: config.WEBHOOK_RETRY_WINDOW_MS },
      attemptTimeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
      limits: {
        concurrency: config.WEBHOOK_CONCURRENCY,
        perEndpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
        perEndpointRate: config.WEBHOOK_ENDPOINT_RATE,
        pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
        // No retry falls due sooner than the base delay after its failure (tests shorten it).
        idlePollMs: Math.min(IDLE_POLL_MS, config.WEBHOOK_RETRY_BASE_MS),
      },
    });
    const apiBaseUrl = `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/api/v1`;
    let stopRetention: (() => void) | undefined;
    return {
      server: createWebhooksServer({ logger, verifier: auth.verifier, metrics, endpoints: parts.endpoints }),
      consumers: [createEventIntakeConsumer({ kafka, logger, pool, apps: parts.apps, apiBaseUrl, maxPendingPerEndpoint: config.WEBHOOK_ENDPOINT_MAX_PENDING })],
      started: () => {
        parts.worker.start();
        stopRetention = parts.startRetention();
      },
      closers: {
        beforeServer: [{ name: 'delivery log retention', close: async () => stopRetention?.() }],
        afterEventWork: [
          {
            name: 'delivery worker',
            close: async () => {
              await parts.worker.stop();
              parts.sender.close();
            },
          },
        ],
        beforePool: [{ name: 'users client', close: () => users.close() }],
      },
    };
  },
});

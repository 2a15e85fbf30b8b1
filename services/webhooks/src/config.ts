import { z } from 'zod';
import { loadConfig, serviceAddress, serviceEnv } from '@inkwell/config';

/** A comma-separated list of host names or IP literals (empty: none). */
const hostList = z
  .string()
  .default('')
  .transform((value) => value.split(',').map((host) => host.trim()).filter((host) => host !== ''));

const schema = serviceEnv('WEBHOOKS', { grpc: 50056, metrics: 9156 }, { redis: false, markdown: false }, {
  USERS_SERVICE_ADDR: serviceAddress.default('127.0.0.1:50051'),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
  // The gateway's public origin: payloads link to `${PUBLIC_BASE_URL}/api/v1/...`.
  PUBLIC_BASE_URL: z.url().default('http://127.0.0.1:8080'),
  // AES-256-GCM key of the stored signing secrets: the base64 of 32 bytes (docs/api/webhooks.md, "Stored secrets").
  WEBHOOK_SECRET_KEY: z
    .string()
    .transform((value) => Buffer.from(value, 'base64'))
    .refine((key) => key.length === 32, 'expected the base64 of 32 bytes'),
  // Hosts deliveries may reach although they are not public, over http too (local development and tests only).
  WEBHOOK_ALLOWED_HOSTS: hostList,
  // The retry schedule (docs/api/webhooks.md, "Retries"); tests shorten it.
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().positive().default(10_000),
  WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce.number().int().positive().default(60 * 60 * 1000),
  WEBHOOK_RETRY_WINDOW_MS: z.coerce.number().int().positive().default(3 * 24 * 60 * 60 * 1000),
  // One attempt's deadline: a 2xx within it is success.
  WEBHOOK_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(64),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  WEBHOOK_ENDPOINT_RATE: z.coerce.number().int().min(1).max(1_000).default(20),
  // Pending deliveries an endpoint may have; beyond it the oldest fail (docs/api/webhooks.md, "Backlog cap").
  WEBHOOK_ENDPOINT_MAX_PENDING: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(10_000).default(100),
});

/** Configuration of the webhooks service, parsed once from the environment at boot. */
export type WebhooksConfig = z.output<typeof schema>;

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadWebhooksConfig(env: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  return loadConfig(schema, env);
}

import { fileURLToPath } from 'node:url';
import { ConfigError } from '@inkwell/config';
import { createKafka } from '@inkwell/events';
import { serveMetrics } from '@inkwell/grpc';
import { createLogger, type Logger } from '@inkwell/logging';
import type { ListStoriesResponse } from '@inkwell/proto/stories';
import { pingRedis } from '@inkwell/redis';
import { cachedRelationsClient, relationsGenerations } from '@inkwell/relations';
import { createAuthEdge, rateLimitKeyPrefix } from './auth/auth-edge.js';
import { CacheInvalidationConsumer } from './cache/cache-invalidation.consumer.js';
import { cachedStoriesClient, cachedUsersClient } from './cache/cached-backends.js';
import { ListAnswerCache, registerListCacheMetrics } from './cache/list-answer.cache.js';
import { PublicResourceCache, publicCacheGenerations, registerPublicCacheMetrics } from './cache/public-resource.cache.js';
import { withWriteInvalidation } from './cache/write-invalidation.js';
import { guardBackends } from './backends/backend.guard.js';
import { BACKEND_OF, closeGrpcBackends, createGrpcBackends } from './backends/grpc.backends.js';
import { createGatewayRedis } from './backends/redis.backend.js';
import { loadGatewayConfig, type GatewayConfig } from './config.js';
import { startExpressGateway } from './eg/express-gateway.runtime.js';
import { createFinalHandler, installFinalHandler } from './eg/final-handler.js';
import { createInkwellPlugin } from './eg/inkwell.plugin.js';
import { createHealthRoutes } from './health/health.routes.js';
import { createDependencyMonitor, type DependencyCheck } from './health/dependency.monitor.js';
import { registerDocsRoutes } from './docs/docs.routes.js';
import { createReadinessCheck } from './health/readiness.check.js';
import { apiCacheHeaders } from './http/api-caching.js';
import { createHttpMetrics } from './http/http.metrics.js';
import { drainableHttpServer, drainHttpServer } from './http/graceful-drain.js';
import { MAX_BODY_BYTES } from './http/json-body.reader.js';
import { createRequestContext } from './http/request-context.middleware.js';
import { API_V1_PREFIX, createApiLinks } from './jsonapi/api-links.js';
import { createDocumentResponder, CursorStore } from './jsonapi/index.js';
import { IdempotencyStore } from './idempotency/idempotency.store.js';
import { withIdempotency } from './idempotency/idempotent.routes.js';
import { apiDocument } from './openapi/api.document.js';
import { createApiDispatchPolicy } from './eg/policies/api-dispatch.policy.js';
import { createFeedsDispatchPolicy } from './eg/policies/feeds-dispatch.policy.js';
import { createFeedResponder, type RenderedFeed } from './feeds/feed.responder.js';
import { BENCH_NOAUTH_PREFIX } from './eg/policies/bench-noauth.policy.js';
import { ReportThrottle } from './ratelimit/report.throttle.js';
import { createResourceLoaders } from './resources/resource.loaders.js';
import { apiRoutes } from './routes/api.routes.js';
import { RouteTable } from './routing/route-table.js';

const CONFIG_DIR = fileURLToPath(new URL('../config', import.meta.url));
const HEALTH_CHECK_DEADLINE_MS = 800;
/** Browse answers held at once: each lives PUBLIC_LIST_CACHE_TTL_MS, so only the lists asked for that often stay. */
const LIST_CACHE_MAX_ENTRIES = 256;
/** Bytes of browse answers held at once (a page is at most a few MiB: docs/api/foundation.md, "Byte budgets"). */
const LIST_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** Rendered public feeds held at once: each lives FEED_CACHE_TTL_MS, so only feeds asked for that often stay. */
const FEED_CACHE_MAX_ENTRIES = 1_024;
/** Bytes of rendered feeds held at once (a feed of 50 entries is a few tens of KiB). */
const FEED_CACHE_MAX_BYTES = 32 * 1024 * 1024;

/** Composition root of the gateway: config → clients → route table → plugin → express-gateway. */
async function main(config: GatewayConfig, logger: Logger): Promise<void> {
  const metrics = createHttpMetrics();
  const clients = createGrpcBackends(config);
  const redis = createGatewayRedis(config.redis, logger, config.redisKeyPrefix);
  // Every backend and Redis checked in the background; a backend found down fails its calls at once (docs/api/foundation.md).
  // One check per backend process: a client served by another service's process (BACKEND_OF) is checked through that service's.
  const checks: DependencyCheck[] = Object.entries(clients)
    .filter(([name]) => BACKEND_OF[name as keyof typeof clients] === name)
    .map(([name, client]) => ({ name, check: () => client.checkHealth('', HEALTH_CHECK_DEADLINE_MS) }));
  checks.push({ name: 'redis', check: () => pingRedis(redis, HEALTH_CHECK_DEADLINE_MS) });
  // Idempotency answers may live on a Redis of their own, so they can never crowd out rate limits, cursors and sessions.
  const idempotencyRedis = config.idempotencyRedis === undefined ? redis : createGatewayRedis(config.idempotencyRedis, logger, config.redisKeyPrefix);
  if (idempotencyRedis !== redis) checks.push({ name: 'redis-idempotency', check: () => pingRedis(idempotencyRedis, HEALTH_CHECK_DEADLINE_MS) });
  const monitor = createDependencyMonitor(checks, { intervalMs: 1_000, timeoutMs: HEALTH_CHECK_DEADLINE_MS, registry: metrics.registry, logger });
  const backends = guardBackends(clients, { monitor, registry: metrics.registry });
  const links = createApiLinks(config.publicBaseUrl);
  const loaders = createResourceLoaders({ users: backends.users, stories: backends.stories, bookshelves: backends.bookshelves, links });
  const documents = createDocumentResponder({ cursors: new CursorStore(redis, { ttlSeconds: config.cursorTtlSeconds }), loaders });
  // Public representations cached in this process, invalidated by its own Kafka consumer and by its writes (docs/api/foundation.md, "Caching at the edge").
  const cache = new PublicResourceCache(config.publicCache);
  registerPublicCacheMetrics(cache, metrics.registry);
  // The Atom feeds read what the public sees (or a feed token's owner's inbox), through the same cached clients (docs/api/updates.md, "Atom feeds");
  // a rendered public feed is dropped when content leaves the public.
  const feedCache = config.publicCache.enabled ? new ListAnswerCache<RenderedFeed>({ ttlMs: config.publicCache.feedTtlMs, maxEntries: FEED_CACHE_MAX_ENTRIES, maxBytes: FEED_CACHE_MAX_BYTES }) : undefined;
  const invalidation = config.publicCache.enabled
    ? new CacheInvalidationConsumer(createKafka({ ...config.kafka, clientId: 'inkwell-gateway', logger }), cache, logger, () => feedCache?.clear())
    : undefined;
  const lists = config.publicCache.enabled ? new ListAnswerCache<ListStoriesResponse>({ ttlMs: config.publicCache.listTtlMs, maxEntries: LIST_CACHE_MAX_ENTRIES, maxBytes: LIST_CACHE_MAX_BYTES }) : undefined;
  if (lists !== undefined) registerListCacheMetrics(lists, metrics.registry);
  const generations = publicCacheGenerations(redis, config.publicCache.ttlMs);
  const readBackends = { users: cachedUsersClient(backends.users, cache, generations), stories: cachedStoriesClient(backends.stories, cache, generations, lists) };
  const routes = withIdempotency(
    withWriteInvalidation(apiRoutes({ users: readBackends.users, stories: readBackends.stories, messaging: backends.messaging, notifications: backends.notifications, blog: backends.blog, bookshelves: backends.bookshelves, webhooks: backends.webhooks, moderation: backends.moderation, relations: cachedRelationsClient(backends.relations, relationsGenerations(redis)), reportThrottle: new ReportThrottle(redis, rateLimitKeyPrefix(config.publicBaseUrl), logger), links, documents }), cache, generations),
    new IdempotencyStore(idempotencyRedis),
  );
  const table = new RouteTable(API_V1_PREFIX, routes);
  const feeds = createFeedResponder({
    backends: { users: readBackends.users, stories: readBackends.stories, blog: backends.blog, bookshelves: backends.bookshelves, notifications: backends.notifications },
    links,
    logger,
    ...(feedCache === undefined ? {} : { cache: feedCache }),
  });

  const readiness = createReadinessCheck(monitor);
  const health = createHealthRoutes({ readiness });
  const auth = createAuthEdge({ config, users: backends.users, webhooks: backends.webhooks, redis, registry: metrics.registry, logger });

  const plugin = createInkwellPlugin({
    policies: [...auth.policies, createApiDispatchPolicy({ table, links, logger, maxBodyBytes: MAX_BODY_BYTES }), createFeedsDispatchPolicy(feeds, logger)],
    gatewayRoutes: [
      (app) => {
        installFinalHandler(app, createFinalHandler(logger));
        app.use(createRequestContext({ logger, metrics, draining: () => readiness.isDraining() }));
        app.get('/healthz', health.healthz);
        app.get('/readyz', health.readyz);
        auth.registerRoutes(app);
        registerDocsRoutes(app, apiDocument(routes), { publicBaseUrl: config.publicBaseUrl });
        // Every other API answer is the caller's own (docs/api/foundation.md, "Caching at the edge");
        // the API document above is the same for everyone. /metrics has a port of its own.
        app.use(API_V1_PREFIX, apiCacheHeaders);
        app.use(API_V1_PREFIX, auth.apiPreflight);
        app.use(BENCH_NOAUTH_PREFIX + API_V1_PREFIX, apiCacheHeaders);
      },
    ],
  });

  const { server, address } = await startExpressGateway({ configDir: CONFIG_DIR, host: config.host, port: config.port, plugin, logger });
  // Prometheus text on a port of its own, never on the public listener (docs/api/foundation.md, "Service metrics").
  const metricsServer = await serveMetrics({ registry: metrics.registry, port: config.metricsPort, host: config.host, logger });
  logger.info({ address: address.address, port: address.port, metricsPort: metricsServer.port, publicBaseUrl: config.publicBaseUrl, backends: config.backends }, 'gateway listening');
  monitor.start();
  // In the background: without Kafka the gateway still serves, from the backends (the cache stays off).
  invalidation?.start().catch((error: unknown) => logger.error({ err: error }, 'cache invalidation consumer failed to start: public cache off'));

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, delayMs: config.shutdownDelayMs, graceMs: config.shutdownGraceMs }, 'shutting down');
    const drained = drainHttpServer({
      server: drainableHttpServer(server),
      readinessOff: () => readiness.drain(),
      delayMs: config.shutdownDelayMs,
      graceMs: config.shutdownGraceMs,
      onStep: (step) => logger.info({ step }, 'draining'),
    });
    void drained.then(() => {
      monitor.close();
      closeGrpcBackends(backends);
      Promise.all([auth.close(), redis.quit(), idempotencyRedis === redis ? undefined : idempotencyRedis.quit(), invalidation?.stop(), metricsServer.close()])
        .catch(() => redis.disconnect())
        .finally(() => {
          logger.info('stopped');
          process.exit(0);
        });
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

let config: GatewayConfig;
try {
  config = loadGatewayConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
const logger = createLogger('gateway', { level: config.logLevel });
process.on('uncaughtException', (error) => {
  logger.fatal({ err: error }, 'uncaught exception');
  process.exit(1);
});
main(config, logger).catch((error: unknown) => {
  logger.fatal({ err: error }, 'gateway failed to start');
  process.exit(1);
});

import { grpcTlsSettings, internalAuthSettings, kafkaSettings, redisSettings, type CommonServiceEnv, type GrpcTlsSettings, type RedisEnv, type ServiceListenEnv } from '@inkwell/config';
import { createKafka, OutboxRelay, openServiceDatabase, registerEventMetrics, startEventWork, type EventConsumer } from '@inkwell/events';
import { createInternalAuth, createMetricsRegistry, serveMetrics, serviceClosers, shutdownOnSignals, type Closer, type ExtraClosers, type GrpcServer, type InternalAuth, type MetricsRegistry } from '@inkwell/grpc';
import { createLogger, type Logger } from '@inkwell/logging';
import { closeMarkdown, configureMarkdown } from '@inkwell/markdown';
import { createRedis, type Redis } from '@inkwell/redis';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';

/** The variables of the Markdown render pool, when the service's schema has them (serviceEnv with `markdown: true`). */
interface MarkdownConfig {
  MARKDOWN_RENDER_WORKERS?: number | undefined;
  MARKDOWN_RENDER_DEADLINE_MS?: number | undefined;
  MARKDOWN_RENDER_MEMORY_MB?: number | undefined;
  MARKDOWN_RENDER_TEXTS_PER_CALLER?: number | undefined;
}

/** A service's parsed environment, as `serviceEnv` of @inkwell/config makes it for prefix `P`. */
export type ServiceConfig<P extends string> = CommonServiceEnv & ServiceListenEnv<P> & MarkdownConfig;

/** What the boot has made before the service's own wiring runs. */
export interface ServiceParts<C> {
  config: C;
  logger: Logger;
  /** gRPC over TLS when configured (docs/api/foundation.md, "Internal calls"): the server and every client of this process. */
  tls: GrpcTlsSettings | undefined;
  /** The signer of this process's outgoing calls and the verifier of incoming ones. */
  auth: InternalAuth;
  /** A pool of the service's schema, migrated (docs/api/foundation.md, "Stores and least privilege"). */
  pool: pg.Pool;
  kafka: Kafka;
  metrics: MetricsRegistry;
  /** The process's Redis client, opened on first use and closed at shutdown before the pool. */
  redis: C extends RedisEnv & { REDIS_KEY_PREFIX: string } ? () => Redis : never;
}

/** What the service's own wiring hands back to the boot. */
export interface ServiceWiring {
  /** The gRPC server (not listening yet). */
  server: GrpcServer;
  /** The service's Kafka consumers, started in the background after listening. */
  consumers?: readonly EventConsumer[];
  /** Work to start once the server listens (background jobs that must not hold up start-up). */
  started?: () => void;
  /** What to close besides the standard parts, by where it goes in the shutdown sequence. */
  closers?: ExtraClosers;
}

/** Options of {@link runService}. */
export interface RunServiceOptions<P extends string, C extends ServiceConfig<P>> {
  /** The service's name: its logger, internal-auth identity, schema owner's application names, Kafka client id `inkwell-<name>`. */
  name: string;
  /** The prefix of its variables (`BLOG` for BLOG_GRPC_PORT and BLOG_METRICS_PORT). */
  prefix: P;
  /** Parses the environment (the service's `load<Name>Config`). */
  loadConfig: () => C;
  /** The schema the service owns and the folder of its migrations. */
  database: { schema: string; migrations: string; settings?: Readonly<Record<string, string>> };
  /** Whether the service renders Markdown: the render pool is configured from MARKDOWN_RENDER_* and closed last. */
  markdown?: boolean;
  /** The topics the service's outbox writes to (created at start). */
  topics: readonly string[];
  /** The service's own wiring: repositories → services → server and consumers. */
  wire: (parts: ServiceParts<C>) => Promise<ServiceWiring>;
}

/**
 * Boots one gRPC service, the part every main.ts shares: config → pool (migrated), Kafka, metrics,
 * outbox relay → the service's own wiring → listen (gRPC, health, GET /metrics) → the Kafka work in
 * the background (Kafka being down only delays events and derived values; docs/api/foundation.md,
 * "Service start-up and readiness") → graceful shutdown on SIGTERM/SIGINT. A failure before
 * listening is logged and exits with status 1.
 */
export function runService<const P extends string, C extends ServiceConfig<P>>(options: RunServiceOptions<P, C>): void {
  boot(options).catch((error: unknown) => {
    createLogger(options.name).fatal({ err: error }, `${options.name} service failed to start`);
    process.exit(1);
  });
}

async function boot<P extends string, C extends ServiceConfig<P>>(options: RunServiceOptions<P, C>): Promise<void> {
  const { name, prefix } = options;
  const logger = createLogger(name);
  const config = options.loadConfig();
  const tls = grpcTlsSettings(config);
  const auth = createInternalAuth(name, internalAuthSettings(config));
  if (options.markdown) {
    configureMarkdown({ workers: config.MARKDOWN_RENDER_WORKERS, deadlineMs: config.MARKDOWN_RENDER_DEADLINE_MS, memoryMb: config.MARKDOWN_RENDER_MEMORY_MB, textsPerCaller: config.MARKDOWN_RENDER_TEXTS_PER_CALLER });
  }
  const pool = await openServiceDatabase({
    service: name,
    schema: options.database.schema,
    migrations: options.database.migrations,
    connectionString: config.DATABASE_URL,
    migrationConnectionString: config.DATABASE_MIGRATION_URL,
    max: config.DATABASE_POOL_SIZE,
    logger,
    ...(options.database.settings ? { settings: options.database.settings } : {}),
  });
  let redis: Redis | undefined;
  const openRedis = (): Redis => (redis ??= createRedis(redisSettings(config as unknown as RedisEnv), { keyPrefix: config.REDIS_KEY_PREFIX }, logger));
  const kafka = createKafka({ ...kafkaSettings(config), clientId: `inkwell-${name}`, logger, namespace: config.KAFKA_NAMESPACE });
  const metrics = createMetricsRegistry();
  const eventMetrics = registerEventMetrics({ registry: metrics, pool, schema: options.database.schema, kafka, logger });
  const relay = new OutboxRelay({ pool, kafka, schema: options.database.schema, logger });

  const wiring = await options.wire({ config, logger, tls, auth, pool, kafka, metrics, redis: openRedis as ServiceParts<C>['redis'] });

  const address = listenAddress(config, prefix);
  const server = wiring.server;
  const port = await server.listen(`${address.host}:${address.port}`, { tls, healthPort: config.GRPC_HEALTH_PORT });
  const metricsServer = await serveMetrics({ registry: metrics, port: address.metricsPort, host: address.host, logger });
  logger.info({ port, metricsPort: metricsServer.port }, `${name} service listening`);

  const events = startEventWork({ kafka, logger, topics: options.topics, relay, consumers: [...(wiring.consumers ?? [])] });
  wiring.started?.();

  const extras = wiring.closers ?? {};
  const opened = redis;
  const stores: Closer[] = opened === undefined ? [] : [{ name: 'redis', close: () => closeRedis(opened) }];
  const workers: Closer[] = options.markdown ? [{ name: 'markdown workers', close: () => closeMarkdown() }] : [];
  shutdownOnSignals({
    logger,
    closers: serviceClosers(
      { server, events, metricsServer, eventMetrics, pool },
      { ...extras, beforePool: [...(extras.beforePool ?? []), ...stores], afterPool: [...(extras.afterPool ?? []), ...workers] },
      config.SHUTDOWN_DELAY_MS,
    ),
  });
}

/** Where the service listens: `<PREFIX>_GRPC_HOST`, `<PREFIX>_GRPC_PORT` and `<PREFIX>_METRICS_PORT`. */
function listenAddress<P extends string>(config: ServiceListenEnv<P>, prefix: P): { host: string; port: number; metricsPort: number } {
  const env = config as Record<string, unknown>;
  return { host: String(env[`${prefix}_GRPC_HOST`]), port: Number(env[`${prefix}_GRPC_PORT`]), metricsPort: Number(env[`${prefix}_METRICS_PORT`]) };
}

/** Closes Redis after its pending replies, or at once when it cannot (e.g. the server is gone). */
async function closeRedis(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}

import { z } from 'zod';
import { grpcHealthEnv, grpcTlsEnv, refineGrpcTlsEnv, type GrpcTlsEnv } from './grpc-tls.js';
import { internalAuthEnv } from './internal-auth.js';
import { isolationEnv, markdownEnv } from './process-env.js';
import { databaseEnv, kafkaEnv, metricsEnv, redisEnv, refineKafkaEnv, refineRedisEnv, type KafkaEnv, type RedisEnv } from './stores.js';

/** A `host:port` address of another gRPC service (`users:50051`, `[::1]:50051`). */
export const serviceAddress = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, 'expected host:port');

/** Where a service listens by default: its gRPC port and the port of its GET /metrics. */
export interface ServicePorts {
  grpc: number;
  metrics: number;
}

/** Which optional stores a service uses, each adding its variables. */
export interface ServiceStores<R extends boolean, M extends boolean> {
  /** Redis (REDIS_URL and its TLS settings). */
  redis: R;
  /** The Markdown render pool (MARKDOWN_RENDER_*), for a service that renders user text. */
  markdown: M;
}

/** The variables of a service's own gRPC address: `<PREFIX>_GRPC_HOST` and `<PREFIX>_GRPC_PORT`. */
function grpcListenEnv<const P extends string>(prefix: P, defaultPort: number) {
  return {
    [`${prefix}_GRPC_HOST`]: z.string().min(1).default('127.0.0.1'),
    [`${prefix}_GRPC_PORT`]: z.coerce.number().int().min(0).max(65535).default(defaultPort),
  } as Record<`${P}_GRPC_HOST`, z.ZodDefault<z.ZodString>> & Record<`${P}_GRPC_PORT`, z.ZodDefault<z.ZodCoercedNumber<unknown>>>;
}

/** The variables every service reads, whatever it does, but for its own address. */
function commonShape() {
  return {
    ...isolationEnv,
    ...internalAuthEnv,
    /** gRPC over TLS and the plaintext health port (docs/api/foundation.md, "Internal calls"); unset locally. */
    ...grpcTlsEnv,
    ...grpcHealthEnv,
    ...databaseEnv,
    ...kafkaEnv,
    /**
     * How long a stopping service reports NOT_SERVING while it still answers, before it refuses
     * new calls (docs/api/foundation.md, "Service start-up and readiness"; SERVER_NOT_SERVING_FIRST_MS
     * of @inkwell/grpc). Test systems set 0: nobody routes around their single process.
     */
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  };
}

/** The variables of where a service listens: its gRPC address and, apart, its GET /metrics. */
function listenShape<const P extends string>(prefix: P, ports: ServicePorts) {
  return {
    ...grpcListenEnv(prefix, ports.grpc),
    /** Port of GET /metrics (docs/api/foundation.md, "Service metrics"); 0 turns it off. */
    ...metricsEnv(prefix, ports.metrics),
  };
}

type StoreShape<R extends boolean, M extends boolean> = (R extends true ? typeof redisEnv : object) & (M extends true ? typeof markdownEnv : object);

/** The zod shape of {@link serviceEnv}: the common variables, those of the stores used, and the service's own. */
export type ServiceShape<P extends string, R extends boolean, M extends boolean, S extends z.ZodRawShape> = ReturnType<typeof commonShape> & ReturnType<typeof listenShape<P>> & StoreShape<R, M> & S;

/** The parsed variables every service has, whatever its prefix (see {@link serviceEnv}). */
export type CommonServiceEnv = z.output<z.ZodObject<ReturnType<typeof commonShape>>>;

/** The parsed variables of a service's own gRPC address and metrics port. */
export type ServiceListenEnv<P extends string> = Record<`${P}_GRPC_HOST`, string> & Record<`${P}_GRPC_PORT` | `${P}_METRICS_PORT`, number>;

/**
 * The environment schema of one gRPC service (docs/api/foundation.md): what every service reads
 * (isolation prefixes, internal call keys, gRPC TLS and the health port, Postgres, Kafka, its own
 * `<PREFIX>_GRPC_HOST`/`_GRPC_PORT` and `<PREFIX>_METRICS_PORT`), Redis and the Markdown render
 * pool when `stores` says so, and `own`, the variables of this service alone. The checks between
 * variables (Kafka, gRPC TLS, Redis) come with it. Parse it with `loadConfig` in the service's
 * config.ts.
 */
export function serviceEnv<const P extends string, R extends boolean, M extends boolean, const S extends z.ZodRawShape>(prefix: P, ports: ServicePorts, stores: ServiceStores<R, M>, own: S) {
  const shape = {
    ...commonShape(),
    ...listenShape(prefix, ports),
    ...(stores.redis ? redisEnv : {}),
    ...(stores.markdown ? markdownEnv : {}),
    ...own,
  } as ServiceShape<P, R, M, S>;
  return z.object(shape).superRefine((env, ctx) => {
    const parsed = env as unknown as KafkaEnv & GrpcTlsEnv & Partial<RedisEnv>;
    refineKafkaEnv(parsed, ctx);
    refineGrpcTlsEnv(parsed, ctx);
    if (stores.redis) refineRedisEnv(parsed as RedisEnv, ctx);
  });
}

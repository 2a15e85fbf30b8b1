import { envFlag, grpcTlsEnv, grpcTlsSettings, internalAuthEnv, internalAuthSettings, isolationEnv, kafkaEnv, kafkaSettings, loadConfig, metricsEnv, redisEnv, redisSettings, refineGrpcTlsEnv, refineKafkaEnv, refineRedisEnv } from '@inkwell/config';
import { CALLER_SHARE_DEFAULTS } from '@inkwell/limits';
import { z } from 'zod';

const hostPort = z.string().regex(/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/, 'expected host:port');

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .refine((value) => !/[?#]/.test(value), 'must not contain a query or fragment')
  .transform((value) => value.replace(/\/+$/, ''));

const positiveInt = z.coerce.number().int().positive();

/** The environment of the gateway process; see {@link GatewayConfig} for the parsed shape. */
export const gatewayEnvSchema = z
  .object({
    REDIS_KEY_PREFIX: isolationEnv.REDIS_KEY_PREFIX,
    KAFKA_NAMESPACE: isolationEnv.KAFKA_NAMESPACE,
    ...kafkaEnv,
    ...internalAuthEnv,
    ...grpcTlsEnv,
    GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
    GATEWAY_PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
    ...metricsEnv('GATEWAY', 9150),
    PUBLIC_BASE_URL: httpUrl.optional(),
    USERS_SERVICE_ADDR: hostPort.default('127.0.0.1:50051'),
    MESSAGING_SERVICE_ADDR: hostPort.default('127.0.0.1:50055'),
    BLOG_SERVICE_ADDR: hostPort.default('127.0.0.1:50054'),
    STORIES_SERVICE_ADDR: hostPort.default('127.0.0.1:50052'),
    BOOKSHELVES_SERVICE_ADDR: hostPort.default('127.0.0.1:50053'),
    WEBHOOKS_SERVICE_ADDR: hostPort.default('127.0.0.1:50056'),
    ...redisEnv,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).default(2_000),
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(300),
    RATE_LIMIT_TOKEN_MAX: positiveInt.default(1_000),
    RATE_LIMIT_ANONYMOUS_MAX: positiveInt.default(60),
    CALLER_IN_FLIGHT_MAX: positiveInt.default(CALLER_SHARE_DEFAULTS.inFlight),
    CALLER_WAITING_MAX: positiveInt.default(CALLER_SHARE_DEFAULTS.waiting),
    CALLER_BYTES_PER_SECOND: positiveInt.default(CALLER_SHARE_DEFAULTS.bytesPerSecond),
    CREDENTIALS_ADDRESS_MAX: positiveInt.default(20),
    CREDENTIALS_ADDRESS_WINDOW_SECONDS: positiveInt.default(60),
    SIGN_IN_ADDRESS_LOGIN_MAX: positiveInt.default(5),
    SIGN_IN_ADDRESS_LOGIN_WINDOW_SECONDS: positiveInt.default(900),
    TOKEN_CACHE_SIZE: positiveInt.default(10_000),
    TOKEN_CACHE_TTL_MS: positiveInt.default(60_000),
    TRUST_PROXY: envFlag.default(false),
    COOKIE_SECURE: z.enum(['auto', 'true', 'false']).default('auto'),
    SESSION_TTL_SECONDS: positiveInt.default(86_400),
    BENCH_NOAUTH: envFlag.default(false),
    CURSOR_TTL_SECONDS: positiveInt.default(3_600),
    PUBLIC_CACHE: envFlag.default(true),
    PUBLIC_CACHE_TTL_SECONDS: positiveInt.default(60),
    PUBLIC_CACHE_MAX_ENTRIES: positiveInt.default(50_000),
    PUBLIC_CACHE_MAX_BYTES: positiveInt.default(256 * 1024 * 1024),
    PUBLIC_LIST_CACHE_TTL_MS: positiveInt.default(200),
    FEED_CACHE_TTL_MS: positiveInt.default(2_000),
    IDEMPOTENCY_REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  })
  .superRefine(refineRedisEnv)
  .superRefine(refineKafkaEnv)
  .superRefine(refineGrpcTlsEnv)
  .transform((env) => ({
    host: env.GATEWAY_HOST,
    port: env.GATEWAY_PORT,
    metricsPort: env.GATEWAY_METRICS_PORT,
    publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://${env.GATEWAY_HOST.includes(':') ? `[${env.GATEWAY_HOST}]` : env.GATEWAY_HOST}:${env.GATEWAY_PORT}`,
    backends: {
      users: env.USERS_SERVICE_ADDR,
      messaging: env.MESSAGING_SERVICE_ADDR,
      blog: env.BLOG_SERVICE_ADDR,
      stories: env.STORIES_SERVICE_ADDR,
      bookshelves: env.BOOKSHELVES_SERVICE_ADDR,
      webhooks: env.WEBHOOKS_SERVICE_ADDR,
    },
    redis: redisSettings(env),
    /** The idempotency store's own Redis (docs/api/foundation.md, "Idempotent POSTs"); undefined: the shared one. */
    idempotencyRedis: env.IDEMPOTENCY_REDIS_URL === undefined ? undefined : redisSettings({ ...env, REDIS_URL: env.IDEMPOTENCY_REDIS_URL }),
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    internalAuth: internalAuthSettings(env),
    grpcTls: grpcTlsSettings(env),
    logLevel: env.LOG_LEVEL,
    grpcDeadlineMs: env.GRPC_DEADLINE_MS,
    /** After SIGTERM: serving with /readyz 503 for this long, then not listening (docs/api/foundation.md, "Readiness and backend outages"). */
    shutdownDelayMs: env.SHUTDOWN_DELAY_MS,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    rateLimit: { windowMs: env.RATE_LIMIT_WINDOW_SECONDS * 1_000, tokenMax: env.RATE_LIMIT_TOKEN_MAX, anonymousMax: env.RATE_LIMIT_ANONYMOUS_MAX },
    /** Each caller's share of one gateway process (docs/api/auth.md, "Rate limits"). */
    callerShare: { inFlight: env.CALLER_IN_FLIGHT_MAX, waiting: env.CALLER_WAITING_MAX, bytesPerSecond: env.CALLER_BYTES_PER_SECOND },
    credentials: {
      addressMax: env.CREDENTIALS_ADDRESS_MAX,
      addressWindowMs: env.CREDENTIALS_ADDRESS_WINDOW_SECONDS * 1_000,
      signInMax: env.SIGN_IN_ADDRESS_LOGIN_MAX,
      signInWindowMs: env.SIGN_IN_ADDRESS_LOGIN_WINDOW_SECONDS * 1_000,
    },
    tokenCache: { size: env.TOKEN_CACHE_SIZE, ttlMs: env.TOKEN_CACHE_TTL_MS },
    trustProxy: env.TRUST_PROXY,
    cookieSecure: env.COOKIE_SECURE === 'auto' ? ('auto' as const) : env.COOKIE_SECURE === 'true',
    sessionTtlSeconds: env.SESSION_TTL_SECONDS,
    benchNoAuth: env.BENCH_NOAUTH,
    cursorTtlSeconds: env.CURSOR_TTL_SECONDS,
    kafka: { ...kafkaSettings(env), namespace: env.KAFKA_NAMESPACE },
    /** The public cache of docs/api/foundation.md, "Caching at the edge" (off: every read goes to the backends); feedTtlMs: how long a rendered public feed is kept (docs/api/updates.md, "Atom feeds"). */
    publicCache: { enabled: env.PUBLIC_CACHE, ttlMs: env.PUBLIC_CACHE_TTL_SECONDS * 1_000, maxEntries: env.PUBLIC_CACHE_MAX_ENTRIES, maxBytes: env.PUBLIC_CACHE_MAX_BYTES, listTtlMs: env.PUBLIC_LIST_CACHE_TTL_MS, feedTtlMs: env.FEED_CACHE_TTL_MS },
  }));

/**
 * Parsed gateway configuration. `metricsPort` is the port of `GET /metrics` (Prometheus text),
 * apart from the public listener (`port`); 0 turns it off (docs/api/foundation.md, "Service
 * metrics"). `internalAuth` is the gateway's key that signs every gRPC call, `grpcTls` the
 * certificate its gRPC channels present over TLS, undefined for plaintext
 * (docs/api/foundation.md, "Internal calls"). `backends` maps each gRPC backend name to its `host:port`
 * address; a new service is one more `<NAME>_SERVICE_ADDR` variable and one more entry here
 * (readiness checks every backend listed). `publicBaseUrl` has no trailing slash and prefixes
 * every link the API returns; it defaults to the bind address, which is only right for local use.
 *
 * Authentication and limits (docs/api/auth.md, "The token check on API requests"; docs/api/auth.md, "Rate limits"): `rateLimit` is the fixed window (default 5 min)
 * with the allowance per access token and per client address for requests without a valid
 * token; `credentials` are the per-address budgets of sign-in, sign-up and the OAuth endpoints
 * (docs/api/auth.md, "Credentials endpoints"); `tokenCache` bounds the in-process cache of resolved tokens (entries, and how long one
 * is trusted before the users service is asked again). `trustProxy` makes the gateway believe
 * `X-Forwarded-For` (the last hop is the client address) and `X-Forwarded-Proto`; only set it
 * behind a proxy that overwrites them. `cookieSecure` `auto` marks the session cookie Secure
 * when PUBLIC_BASE_URL is https or the request came over TLS. `benchNoAuth` enables the
 * `/bench-noauth/api/v1` copy of the API without authentication and rate limits, for the
 * benchmark only; never set it in a deployment. `cursorTtlSeconds` is how long a list cursor
 * stays usable (docs/api/lists.md, "Cursor pagination": at least 3600 in production; tests set less to watch cursors expire).
 */
export type GatewayConfig = z.output<typeof gatewayEnvSchema>;

/** Names of the gRPC backends the gateway talks to. */
export type BackendName = keyof GatewayConfig['backends'];

/** Reads and validates the gateway environment once; throws ConfigError listing every bad variable. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayEnvSchema, env);
}

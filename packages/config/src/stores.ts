import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { envFlag } from './env-flag.js';

/** A path to a readable file, replaced by the file's text (read once, at boot). */
const fileText = z.string().min(1).transform((path, ctx): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}` });
    return z.NEVER;
  }
});

const postgresUrl = z.url({ protocol: /^postgres(ql)?$/ });

/**
 * Variables of a service's Postgres connections (docs/api/foundation.md, "Stores and least
 * privilege"): DATABASE_URL, the runtime role the service works as (rows of its own schema only);
 * DATABASE_MIGRATION_URL, the owner role the migrations run as at start, over a connection closed
 * right after (unset: DATABASE_URL migrates too, for a single-role database); and the pool size.
 */
export const databaseEnv = {
  DATABASE_URL: postgresUrl,
  DATABASE_MIGRATION_URL: postgresUrl.optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
};

/** The SASL mechanisms a Kafka cluster may ask for (KAFKA_SASL_MECHANISM). */
export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/**
 * Variables of a process's Kafka connection (docs/api/foundation.md, "Stores and least
 * privilege"): the brokers; TLS (KAFKA_SSL, with an optional CA bundle file KAFKA_SSL_CA_FILE for
 * a private CA; the system's CAs otherwise); SASL authentication (KAFKA_SASL_MECHANISM with
 * KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD, or KAFKA_SASL_PASSWORD_FILE, e.g. a mounted
 * Secret). All but the brokers are unset locally: plaintext without authentication. Spread into a
 * process's schema, add `.superRefine(refineKafkaEnv)`, and pass {@link kafkaSettings} of the
 * result to `createKafka`.
 */
export const kafkaEnv = {
  KAFKA_BROKERS: z.string().min(1).default('127.0.0.1:19092').transform((value) => value.split(',').map((broker) => broker.trim()).filter(Boolean)),
  KAFKA_SSL: envFlag.default(false),
  KAFKA_SSL_CA_FILE: fileText.optional(),
  KAFKA_SASL_MECHANISM: z.enum(KAFKA_SASL_MECHANISMS).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD_FILE: fileText.optional(),
};

/** The parsed {@link kafkaEnv} variables. */
export interface KafkaEnv {
  KAFKA_BROKERS: string[];
  KAFKA_SSL: boolean;
  KAFKA_SSL_CA_FILE?: string | undefined;
  KAFKA_SASL_MECHANISM?: (typeof KAFKA_SASL_MECHANISMS)[number] | undefined;
  KAFKA_SASL_USERNAME?: string | undefined;
  KAFKA_SASL_PASSWORD?: string | undefined;
  KAFKA_SASL_PASSWORD_FILE?: string | undefined;
}

/** How to reach Kafka, in the shape `createKafka` (@inkwell/events) takes. */
export interface KafkaConnectionSettings {
  brokers: string[];
  /** TLS on, with the CA bundle to trust (PEM text) when not the system's. */
  ssl?: { ca?: string };
  sasl?: { mechanism: (typeof KAFKA_SASL_MECHANISMS)[number]; username: string; password: string };
}

/**
 * The checks between the Kafka variables, for `.superRefine` on a schema that spread
 * {@link kafkaEnv}: a CA file needs KAFKA_SSL=true; a mechanism needs a user name and exactly one
 * of password and password file; user or password without a mechanism are refused (they would be
 * ignored).
 */
export function refineKafkaEnv(env: KafkaEnv, ctx: z.RefinementCtx): void {
  const issue = (variable: string, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message });
  if (env.KAFKA_SSL_CA_FILE !== undefined && !env.KAFKA_SSL) issue('KAFKA_SSL_CA_FILE', 'needs KAFKA_SSL=true');
  const given = (['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD', 'KAFKA_SASL_PASSWORD_FILE'] as const).filter((name) => env[name] !== undefined);
  if (env.KAFKA_SASL_MECHANISM === undefined) {
    for (const name of given) issue(name, 'needs KAFKA_SASL_MECHANISM');
    return;
  }
  if (env.KAFKA_SASL_USERNAME === undefined) issue('KAFKA_SASL_USERNAME', `required with KAFKA_SASL_MECHANISM=${env.KAFKA_SASL_MECHANISM}`);
  if ((env.KAFKA_SASL_PASSWORD === undefined) === (env.KAFKA_SASL_PASSWORD_FILE === undefined)) {
    issue('KAFKA_SASL_PASSWORD', 'set exactly one of KAFKA_SASL_PASSWORD and KAFKA_SASL_PASSWORD_FILE');
  }
}

/** The Kafka connection of a parsed configuration that spread {@link kafkaEnv} (and passed {@link refineKafkaEnv}). */
export function kafkaSettings(env: KafkaEnv): KafkaConnectionSettings {
  const settings: KafkaConnectionSettings = { brokers: env.KAFKA_BROKERS };
  if (env.KAFKA_SSL) settings.ssl = env.KAFKA_SSL_CA_FILE === undefined ? {} : { ca: env.KAFKA_SSL_CA_FILE };
  const password = env.KAFKA_SASL_PASSWORD ?? env.KAFKA_SASL_PASSWORD_FILE?.trim();
  if (env.KAFKA_SASL_MECHANISM !== undefined && env.KAFKA_SASL_USERNAME !== undefined && password !== undefined) {
    settings.sasl = { mechanism: env.KAFKA_SASL_MECHANISM, username: env.KAFKA_SASL_USERNAME, password };
  }
  return settings;
}

/**
 * Variables of a process's Redis connection (docs/api/foundation.md, "Stores and least
 * privilege"): REDIS_URL, `redis://` or `rediss://` (TLS), with an ACL user and password in it
 * (`rediss://inkwell-users:secret@redis:6380/0`); REDIS_TLS_CA_FILE, the CA bundle of a
 * `rediss://` server signed by a private CA. Spread into a process's schema, add
 * `.superRefine(refineRedisEnv)`, and pass {@link redisSettings} of the result to `createRedis`.
 */
export const redisEnv = {
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
  REDIS_TLS_CA_FILE: fileText.optional(),
};

/** The parsed {@link redisEnv} variables. */
export interface RedisEnv {
  REDIS_URL: string;
  REDIS_TLS_CA_FILE?: string | undefined;
}

/** How to reach Redis, in the shape `createRedis` (@inkwell/redis) takes. */
export interface RedisConnectionSettings {
  url: string;
  /** CA bundle (PEM text) a `rediss://` server's certificate is checked against instead of the system's. */
  tlsCa?: string;
}

/** For `.superRefine` on a schema that spread {@link redisEnv}: a CA file needs a `rediss://` URL. */
export function refineRedisEnv(env: RedisEnv, ctx: z.RefinementCtx): void {
  if (env.REDIS_TLS_CA_FILE !== undefined && !env.REDIS_URL.startsWith('rediss://')) {
    ctx.addIssue({ code: 'custom', path: ['REDIS_TLS_CA_FILE'], message: 'needs a rediss:// REDIS_URL' });
  }
}

/** The Redis connection of a parsed configuration that spread {@link redisEnv}. */
export function redisSettings(env: RedisEnv): RedisConnectionSettings {
  return env.REDIS_TLS_CA_FILE === undefined ? { url: env.REDIS_URL } : { url: env.REDIS_URL, tlsCa: env.REDIS_TLS_CA_FILE };
}

/**
 * The variable of a process's Prometheus endpoint: `<PREFIX>_METRICS_PORT` (e.g.
 * `USERS_METRICS_PORT`), the port of its own small HTTP server answering `GET /metrics`;
 * `0` turns it off. Spread into a process's schema: `...metricsEnv('USERS', 9101)`.
 */
export function metricsEnv<const P extends string>(prefix: P, defaultPort: number): Record<`${P}_METRICS_PORT`, z.ZodDefault<z.ZodCoercedNumber<unknown>>> {
  return { [`${prefix}_METRICS_PORT`]: z.coerce.number().int().min(0).max(65535).default(defaultPort) } as Record<`${P}_METRICS_PORT`, z.ZodDefault<z.ZodCoercedNumber<unknown>>>;
}

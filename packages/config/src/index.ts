import { z } from 'zod';

/** Thrown at boot when the environment does not satisfy a service's configuration schema. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** One line per bad variable, e.g. `DATABASE_URL: Invalid URL`. */
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

/**
 * Parses the environment once against a zod object schema and returns the typed result.
 * Every bad or missing variable is reported together, so an operator fixes them in one go.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(problemsOf(result.error));
}

/** What {@link loadConfig} would report about `env`, one line per bad variable; empty when it is accepted. */
export function configProblems(schema: z.ZodType, env: NodeJS.ProcessEnv): string[] {
  const result = schema.safeParse(env);
  return result.success ? [] : problemsOf(result.error);
}

function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || '(environment)'}: ${issue.message}`);
}

/**
 * Variables every process reads to keep one Inkwell system apart from another on a shared
 * Kafka broker and Redis server (the test suite runs several systems at once): a prefix for
 * Kafka topics and consumer groups, and one for Redis keys. Both are empty in production.
 * Spread into a process's schema: `z.object({ ...isolationEnv, … })`.
 */
export const isolationEnv = {
  KAFKA_NAMESPACE: z.string().regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, dot, dash and underscore only').default(''),
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9._:-]*$/, 'letters, digits, dot, colon, dash and underscore only').default(''),
};

/**
 * Variables of the Markdown render pool (@inkwell/markdown) of a process that renders user text:
 * worker threads, the deadline of one text in ms, the heap of one worker in MiB, and the most
 * texts one caller may have waiting or rendering (at least 2: a chapter's content and author's
 * note). Unset keeps the pool's default (docs/api/foundation.md, "Markdown"). Spread into a
 * process's schema and pass the values to `configureMarkdown` in main.ts.
 */
export const markdownEnv = {
  MARKDOWN_RENDER_WORKERS: z.coerce.number().int().min(1).max(32).optional(),
  MARKDOWN_RENDER_DEADLINE_MS: z.coerce.number().int().min(1).max(60_000).optional(),
  MARKDOWN_RENDER_MEMORY_MB: z.coerce.number().int().min(32).max(4096).optional(),
  MARKDOWN_RENDER_TEXTS_PER_CALLER: z.coerce.number().int().min(2).max(1000).optional(),
};

export { envFlag } from './env-flag.js';
export { grpcHealthEnv, grpcTlsEnv, grpcTlsSettings, refineGrpcTlsEnv, type GrpcTlsEnv, type GrpcTlsSettings } from './grpc-tls.js';
export { internalAuthEnv, internalAuthSettings } from './internal-auth.js';
export {
  databaseEnv,
  kafkaEnv,
  kafkaSettings,
  metricsEnv,
  redisEnv,
  redisSettings,
  refineKafkaEnv,
  refineRedisEnv,
  KAFKA_SASL_MECHANISMS,
  type KafkaConnectionSettings,
  type KafkaEnv,
  type RedisConnectionSettings,
  type RedisEnv,
} from './stores.js';

import type { z } from 'zod';

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

export { isolationEnv, markdownEnv } from './process-env.js';
export { envFlag } from './env-flag.js';
export { grpcHealthEnv, grpcTlsEnv, grpcTlsSettings, refineGrpcTlsEnv, type GrpcTlsEnv, type GrpcTlsSettings } from './grpc-tls.js';
export { internalAuthEnv, internalAuthSettings } from './internal-auth.js';
export { serviceAddress, serviceEnv, type CommonServiceEnv, type ServiceListenEnv, type ServicePorts, type ServiceShape, type ServiceStores } from './service-env.js';
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

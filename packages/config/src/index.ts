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
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.') || '(environment)';
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
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

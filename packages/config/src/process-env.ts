import { z } from 'zod';

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
 * process's schema and the boot of @inkwell/service passes the values to `configureMarkdown`.
 */
export const markdownEnv = {
  MARKDOWN_RENDER_WORKERS: z.coerce.number().int().min(1).max(32).optional(),
  MARKDOWN_RENDER_DEADLINE_MS: z.coerce.number().int().min(1).max(60_000).optional(),
  MARKDOWN_RENDER_MEMORY_MB: z.coerce.number().int().min(32).max(4096).optional(),
  MARKDOWN_RENDER_TEXTS_PER_CALLER: z.coerce.number().int().min(2).max(1000).optional(),
};

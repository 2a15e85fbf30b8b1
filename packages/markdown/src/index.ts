/*
 * @inkwell/markdown: user-written Markdown → sanitised HTML, bounded in time and size
 * (docs/api/foundation.md, "Markdown"). Every text renders in a worker thread of one pool per
 * process (render-pool.ts), never on the caller's event loop; a text whose HTML would pass
 * MAX_HTML_BYTES, that takes longer than the deadline or needs more than a worker's memory, is
 * refused as INVALID_ARGUMENT `validation_failed` at the pointer of the field it came from.
 * Texts queue per caller and callers take turns; a caller with too many texts in the pool is
 * refused at once (RESOURCE_EXHAUSTED `rate_limited`), and a text whose call is cancelled or
 * past its deadline is dropped.
 */

import { AppError, ErrorCode, type ErrorDetail } from '@inkwell/errors';
import { MarkdownLimitError, MarkdownRenderPool, type MarkdownRenderPoolOptions, type RenderPoolStats } from './render-pool.js';

export { MAX_HTML_BYTES } from './render-protocol.js';
export {
  DEFAULT_RENDER_DEADLINE_MS,
  DEFAULT_RENDER_MEMORY_MB,
  DEFAULT_RENDER_TEXTS_PER_CALLER,
  DEFAULT_RENDER_WORKERS,
  MarkdownLimitError,
  MarkdownRenderPool,
  type MarkdownLimit,
  type MarkdownRenderPoolOptions,
  type RenderOptions,
  type RenderPoolStats,
} from './render-pool.js';

let shared: MarkdownRenderPool | undefined;

function sharedPool(): MarkdownRenderPool {
  shared ??= new MarkdownRenderPool();
  return shared;
}

/**
 * Sets the worker count, deadline, worker memory and texts per caller of this process's pool (a
 * service's main.ts, at boot, from the MARKDOWN_RENDER_* variables of `markdownEnv` in
 * @inkwell/config). Unset options keep their defaults; a pool already running is closed and
 * replaced.
 */
export function configureMarkdown(options: MarkdownRenderPoolOptions): void {
  const previous = shared;
  shared = new MarkdownRenderPool(options);
  void previous?.close();
}

/** Stops this process's render workers (at shutdown). The next render starts a fresh pool. */
export async function closeMarkdown(): Promise<void> {
  const previous = shared;
  shared = undefined;
  await previous?.close();
}

/** What this process's pool is doing (texts waiting, rendering, started so far): for metrics and tests. */
export function markdownRenderStats(): RenderPoolStats {
  return sharedPool().stats();
}

/**
 * Who the texts are rendered for and when to give up on them. `caller` is the signed caller of
 * the request (a service's Viewer or CallerContext): its texts queue under its user id, else its
 * app id, else under the process itself. `signal` (a gRPC handler's `ctx.signal`) drops the texts
 * when the call is cancelled or its deadline passes, and the render rejects with its reason.
 */
export interface RenderContext {
  caller?: { readonly userId?: string | undefined; readonly appId?: string | undefined } | undefined;
  signal?: AbortSignal | undefined;
}

/** The queue a caller's texts wait in: one per user, one per app-only token, one for the process. */
function callerKey(caller: RenderContext['caller']): string {
  if (caller?.userId !== undefined) return `user:${caller.userId}`;
  if (caller?.appId !== undefined) return `app:${caller.appId}`;
  return '';
}

/** One Markdown attribute of a request: its text and the JSON pointer it came from. */
export interface MarkdownField {
  source: string;
  /** JSON pointer into the request document, e.g. `/data/attributes/content`. */
  pointer: string;
}

/**
 * Renders `source` to sanitised HTML (no scripts, no event handlers, no `javascript:`/`data:`
 * URLs, links `rel="nofollow noopener noreferrer"`); empty text gives an empty string. A text
 * over a bound rejects with INVALID_ARGUMENT `validation_failed` at `pointer`; a caller with too
 * many texts in the pool with RESOURCE_EXHAUSTED (at once); an aborted `signal` with its reason;
 * any other failure is a plain error (INTERNAL). Check who may write before calling this.
 */
export async function renderMarkdown(source: string, options: { pointer: string } & RenderContext): Promise<string> {
  const [html] = await renderMarkdownFields([{ source, pointer: options.pointer }], options);
  return html!;
}

/**
 * Renders several attributes of one request at once (in parallel when the pool has workers to
 * spare), in the order given; they take their places in the caller's queue together or are
 * refused together. Every attribute over a bound is reported in one INVALID_ARGUMENT error, one
 * `validation_failed` detail per pointer.
 */
export async function renderMarkdownFields<const Fields extends readonly MarkdownField[]>(fields: Fields, context: RenderContext = {}): Promise<{ -readonly [K in keyof Fields]: string }> {
  const pool = sharedPool();
  const results = await Promise.allSettled(pool.renderAll(fields.map((field) => field.source), { caller: callerKey(context.caller), signal: context.signal }));
  const html: string[] = [];
  const details: ErrorDetail[] = [];
  results.forEach((result, index) => {
    if (result.status === 'fulfilled') html.push(result.value);
    else if (result.reason instanceof MarkdownLimitError) details.push({ reason: 'validation_failed', pointer: fields[index]!.pointer, detail: result.reason.message });
    else throw result.reason;
  });
  if (details.length === 1) throw AppError.validation(details[0]!.pointer!, details[0]!.detail!);
  if (details.length > 1) throw new AppError(ErrorCode.INVALID_ARGUMENT, details.map((detail) => detail.detail).join(' '), { details });
  return html as { -readonly [K in keyof Fields]: string };
}

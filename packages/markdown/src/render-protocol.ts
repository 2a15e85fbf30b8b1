import type { RenderOutcome } from './render.js';

/**
 * Most HTML one text may render to, in bytes of UTF-8: twice the largest text the API accepts
 * (1 MiB), so a text and its HTML fit one gRPC answer under grpc's default 4 MiB limit
 * (docs/api/foundation.md, "Markdown").
 */
export const MAX_HTML_BYTES = 2 * 1024 * 1024;

/** A text for a render worker to render, under an output bound. */
export interface WorkerRequest {
  id: number;
  source: string;
  maxHtmlBytes: number;
}

/** What a render worker posts back: once `ready`, then one answer per request. */
export type WorkerReply =
  | { type: 'ready' }
  | { type: 'done'; id: number; outcome: RenderOutcome }
  | { type: 'failed'; id: number; message: string };

/** The nice value of every render worker thread (docs/api/foundation.md, "Markdown"). */
export const RENDER_THREAD_NICE = 10;

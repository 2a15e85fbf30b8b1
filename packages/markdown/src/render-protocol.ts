import type { RenderOutcome } from './render.js';

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

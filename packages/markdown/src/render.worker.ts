import { parentPort } from 'node:worker_threads';
import { renderHtml } from './render.js';
import { RENDER_THREAD_NICE, type WorkerReply, type WorkerRequest } from './render-protocol.js';
import { lowerThreadPriority } from './thread-priority.js';

/*
 * A render worker of MarkdownRenderPool (render-pool.ts): renders one text at a time, off the
 * service's event loop. It says `ready` once markdown-it and sanitize-html are loaded, so that
 * loading never counts against a text's deadline.
 */
const port = parentPort;
if (!port) throw new Error('render.worker.ts runs only as a worker thread of MarkdownRenderPool');
// Rendering yields the CPU to the threads that answer requests: one caller's slow texts cannot starve everyone else's calls.
lowerThreadPriority(RENDER_THREAD_NICE);

port.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { type: 'done', id: request.id, outcome: renderHtml(request.source, request.maxHtmlBytes) };
  } catch (error) {
    reply = { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ type: 'ready' } satisfies WorkerReply);

import { Worker } from 'node:worker_threads';
import { MAX_HTML_BYTES } from './render.js';
import type { WorkerReply, WorkerRequest } from './render-protocol.js';

/** Worker threads of a pool when not configured: two texts render at once per process. */
export const DEFAULT_RENDER_WORKERS = 2;
/** Longest one text may render, in milliseconds, when not configured (docs/api/foundation.md, "Markdown"). */
export const DEFAULT_RENDER_DEADLINE_MS = 2_000;
/**
 * Heap of one worker, in MiB, when not configured: an ordinary 1 MiB text needs under 64, the
 * most markup-dense ones about 200 (markdown-it holds a token per mark).
 */
export const DEFAULT_RENDER_MEMORY_MB = 256;

/** Options of {@link MarkdownRenderPool}; every one has a default. */
export interface MarkdownRenderPoolOptions {
  /** Most worker threads, each started when first needed (default {@link DEFAULT_RENDER_WORKERS}). */
  workers?: number | undefined;
  /** Longest one text may take in its worker, in ms (default {@link DEFAULT_RENDER_DEADLINE_MS}). */
  deadlineMs?: number | undefined;
  /** Largest HTML one text may render to, in bytes of UTF-8 (default {@link MAX_HTML_BYTES}). */
  maxHtmlBytes?: number | undefined;
  /** Old-generation heap of each worker, in MiB (default {@link DEFAULT_RENDER_MEMORY_MB}). */
  memoryMb?: number | undefined;
}

/** Which bound a text broke: its HTML is too large, rendering it took too long or needed too much memory. */
export type MarkdownLimit = 'too_large' | 'too_slow' | 'too_complex';

/**
 * A text that cannot be rendered within the pool's bounds. Its message is client-safe and says
 * which bound ("renders to more than N bytes of HTML", "takes too long to render").
 */
export class MarkdownLimitError extends Error {
  override readonly name = 'MarkdownLimitError';
  readonly limit: MarkdownLimit;

  constructor(limit: MarkdownLimit, message: string) {
    super(message);
    this.limit = limit;
  }
}

interface Task {
  readonly request: WorkerRequest;
  readonly resolve: (html: string) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  task?: Task | undefined;
  timer?: NodeJS.Timeout | undefined;
}

/*
 * From a build the worker is render.worker.js. From the TypeScript source (tests, `npm run dev`)
 * it is render.worker.ts, which plain Node cannot load and which a worker does not get tsx for
 * from `--import tsx` (module hooks are per thread): a two-line bootstrap registers tsx first.
 */
const fromSource = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSource ? './render.worker.ts' : './render.worker.js', import.meta.url);

function startWorker(memoryMb: number): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: memoryMb } };
  if (!fromSource) return new Worker(workerUrl, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * Renders Markdown in a small pool of worker threads, so that no text, however hostile, blocks
 * the event loop of the process that asked. Each text gets a deadline counted from the moment a
 * worker starts it (time spent waiting for a free worker does not count): a worker still busy
 * at the deadline is terminated, the text refused with MarkdownLimitError `too_slow`, and a new
 * worker started when the next text needs one. A text whose HTML would be larger than
 * `maxHtmlBytes` is refused with `too_large` (see render.ts for how expansion is stopped early);
 * a worker that runs out of its `memoryMb` heap dies, and its text is refused with `too_complex`.
 *
 * Workers start on demand and are unref'd while idle: an idle pool never keeps a process alive,
 * while a pending render does (a script awaiting it is not cut short). `close()` stops them all.
 * Texts wait in order when every worker is busy.
 */
export class MarkdownRenderPool {
  readonly workers: number;
  readonly deadlineMs: number;
  readonly maxHtmlBytes: number;
  readonly memoryMb: number;
  readonly #slots = new Set<Slot>();
  readonly #queue: Task[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: MarkdownRenderPoolOptions = {}) {
    this.workers = options.workers ?? DEFAULT_RENDER_WORKERS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_RENDER_DEADLINE_MS;
    this.maxHtmlBytes = options.maxHtmlBytes ?? MAX_HTML_BYTES;
    this.memoryMb = options.memoryMb ?? DEFAULT_RENDER_MEMORY_MB;
    if (!Number.isInteger(this.workers) || this.workers < 1) throw new RangeError(`workers must be a positive integer, not ${this.workers}`);
    if (!(this.deadlineMs > 0)) throw new RangeError(`deadlineMs must be positive, not ${this.deadlineMs}`);
  }

  /**
   * The sanitised HTML of `source`. Rejects with MarkdownLimitError when the text breaks a
   * bound, with a plain Error when a worker fails otherwise or the pool is closed.
   */
  render(source: string): Promise<string> {
    if (this.#closed) return Promise.reject(new Error('The Markdown render pool is closed.'));
    if (!source) return Promise.resolve('');
    return new Promise<string>((resolve, reject) => {
      this.#queue.push({ request: { id: this.#nextId++, source, maxHtmlBytes: this.maxHtmlBytes }, resolve, reject });
      this.#dispatch();
    });
  }

  /** Stops every worker and refuses waiting and later texts. Safe to call more than once. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new Error('The Markdown render pool is closed.');
    for (const task of this.#queue.splice(0)) task.reject(closed);
    await Promise.all([...this.#slots].map((slot) => this.#retire(slot, closed)));
  }

  /** Gives waiting texts to idle workers, and starts workers for the rest (up to the size). */
  #dispatch(): void {
    let starting = 0;
    for (const slot of this.#slots) {
      if (!slot.ready) starting++;
      else if (!slot.task && this.#queue.length > 0) this.#start(slot, this.#queue.shift()!);
    }
    while (this.#queue.length > starting && this.#slots.size < this.workers) {
      this.#spawn();
      starting++;
    }
  }

  #spawn(): void {
    const slot: Slot = { worker: startWorker(this.memoryMb), ready: false };
    this.#slots.add(slot);
    slot.worker.on('message', (reply: WorkerReply) => this.#onReply(slot, reply));
    slot.worker.on('error', (error) => this.#onExit(slot, isOutOfMemory(error) ? this.#tooComplex() : error));
    slot.worker.on('exit', (code) => this.#onExit(slot, new Error(`A Markdown render worker exited with code ${code}.`)));
  }

  #start(slot: Slot, task: Task): void {
    slot.task = task;
    slot.worker.ref();
    slot.timer = setTimeout(() => this.#onDeadline(slot), this.deadlineMs);
    slot.worker.postMessage(task.request);
  }

  #onReply(slot: Slot, reply: WorkerReply): void {
    if (reply.type === 'ready') {
      slot.ready = true;
    } else {
      const task = slot.task;
      if (!task || task.request.id !== reply.id) return;
      this.#finish(slot);
      if (reply.type === 'failed') task.reject(new Error(`Rendering Markdown failed: ${reply.message}`));
      else if (reply.outcome.ok) task.resolve(reply.outcome.html);
      else task.reject(new MarkdownLimitError('too_large', `The Markdown renders to more than ${this.maxHtmlBytes} bytes of HTML.`));
    }
    this.#dispatch();
    if (!slot.task) slot.worker.unref();
  }

  #tooComplex(): MarkdownLimitError {
    return new MarkdownLimitError('too_complex', `The Markdown needs more than ${this.memoryMb} MiB of memory to render.`);
  }

  #onDeadline(slot: Slot): void {
    void this.#retire(slot, new MarkdownLimitError('too_slow', `The Markdown takes too long to render (more than ${this.deadlineMs} ms).`));
    this.#dispatch();
  }

  /** A worker that failed or exited on its own: its text fails; one that never got ready fails every waiting text. */
  #onExit(slot: Slot, error: Error): void {
    if (!this.#slots.has(slot)) return;
    const neverReady = !slot.ready;
    void this.#retire(slot, error);
    if (neverReady) for (const task of this.#queue.splice(0)) task.reject(error);
    else this.#dispatch();
  }

  #finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.task = undefined;
  }

  /** Takes a worker out of the pool, fails its text with `error`, and terminates it. */
  async #retire(slot: Slot, error: Error): Promise<void> {
    if (!this.#slots.delete(slot)) return;
    const task = slot.task;
    this.#finish(slot);
    task?.reject(error);
    slot.worker.unref();
    await slot.worker.terminate();
  }
}

function isOutOfMemory(error: Error): boolean {
  return (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
}

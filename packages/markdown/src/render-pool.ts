import { Worker } from 'node:worker_threads';
import { AppError, ErrorCode } from '@inkwell/errors';
import { MAX_HTML_BYTES, RENDER_THREAD_NICE, type WorkerReply, type WorkerRequest } from './render-protocol.js';

/** Worker threads of a pool when not configured: three texts render at once per process, at most two of one caller. */
export const DEFAULT_RENDER_WORKERS = 3;
/** Longest one text may render, in milliseconds, when not configured (docs/api/foundation.md, "Markdown"). */
export const DEFAULT_RENDER_DEADLINE_MS = 2_000;
/**
 * Heap of one worker, in MiB, when not configured: an ordinary 1 MiB text needs under 64, the
 * most markup-dense ones about 200 (markdown-it holds a token per mark).
 */
export const DEFAULT_RENDER_MEMORY_MB = 256;
/**
 * Most texts of one caller waiting or rendering at once, when not configured
 * (docs/api/foundation.md, "Markdown"): four chapter writes with an author's note each, or eight
 * single-text writes (a client posting a few chapters side by side fits). One more is refused at
 * once. Fairness, not this bound, keeps one caller from delaying others; the bound caps what one
 * caller can make a process hold (8 MiB of source) and work it can make it waste.
 */
export const DEFAULT_RENDER_TEXTS_PER_CALLER = 8;

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
  /**
   * Most texts one caller may have waiting or rendering at once (default
   * {@link DEFAULT_RENDER_TEXTS_PER_CALLER}); at least 2, the texts of one chapter.
   */
  textsPerCaller?: number | undefined;
}

/** Whose texts these are and when to give up on them; see {@link MarkdownRenderPool.render}. */
export interface RenderOptions {
  /**
   * The key of the caller the texts are rendered for (its user id, else its app id): texts
   * queue per caller and callers take turns. Default `''`: the process itself (seeds, consumers,
   * the operators' CLI), which is one more caller.
   */
  caller?: string | undefined;
  /**
   * Gives up on the texts when it aborts: a waiting text is dropped without being started, a
   * rendering one has its worker terminated, and each rejects with the signal's reason.
   */
  signal?: AbortSignal | undefined;
}

/** What a pool is doing, for metrics and tests: texts waiting and rendering now, and texts started so far. */
export interface RenderPoolStats {
  waiting: number;
  rendering: number;
  started: number;
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
  readonly caller: string;
  readonly resolve: (html: string) => void;
  readonly reject: (error: unknown) => void;
  readonly signal?: AbortSignal | undefined;
  /** The abort listener of `signal`, removed once the task settles. */
  onAbort?: (() => void) | undefined;
  /** The worker rendering it; undefined while it waits. */
  slot?: Slot | undefined;
}

/** A caller with texts in the pool: its waiting texts in order, and how many it holds in all. */
interface CallerQueue {
  readonly waiting: Task[];
  /** Texts waiting or rendering. */
  held: number;
  /** When the pool last started one of its texts (a count of starts); 0: not since it came. */
  lastStarted: number;
}

interface Slot {
  readonly worker: Worker;
  ready: boolean;
  task?: Task | undefined;
  timer?: NodeJS.Timeout | undefined;
  /**
   * The caller whose text was stopped on the worker this one replaces: the new worker counts in
   * that caller's share while it starts and serves that caller first, so the caller's next text
   * waits for it instead of taking the worker left for everyone else.
   */
  reservedFor?: string | undefined;
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
  // Compiling the worker from source is work too: the thread takes its lower priority first (as render.worker.ts does, see thread-priority.ts).
  const nice = `try { const os = process.getBuiltinModule('node:os'); os.setPriority(Number(process.getBuiltinModule('node:fs').readlinkSync('/proc/thread-self').split('/').pop()), ${RENDER_THREAD_NICE}); } catch {}`;
  const bootstrap = `${nice} import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl.href)}); });`;
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
 * Fair and bounded per caller (docs/api/foundation.md, "Markdown"): texts wait in one queue per
 * caller, in order, and a free worker takes the oldest text of the waiting caller served least
 * recently (a caller that had nothing in the pool counts as never served). Callers with backlogs
 * take turns, and a caller that comes with one text waits only for the texts already rendering,
 * however long another caller's backlog. One caller's texts render on at most all workers but
 * one ({@link workersPerCaller}), so a worker is always free for everyone else's next text. A caller with `textsPerCaller` texts waiting or
 * rendering has further texts refused at once with RESOURCE_EXHAUSTED ({@link renderQueueFull}).
 * A text whose signal aborts is dropped while it waits and has its worker terminated while it
 * renders.
 *
 * Workers start on demand and are unref'd while idle: an idle pool never keeps a process alive,
 * while a pending render does (a script awaiting it is not cut short). `close()` stops them all.
 */
export class MarkdownRenderPool {
  readonly workers: number;
  readonly deadlineMs: number;
  readonly maxHtmlBytes: number;
  readonly memoryMb: number;
  readonly textsPerCaller: number;
  /** Seconds a refused caller is asked to wait: one text's deadline, at least 1. */
  readonly retryAfterSeconds: number;
  readonly #slots = new Set<Slot>();
  /** The callers with texts waiting or rendering, in the order they came. */
  readonly #callers = new Map<string, CallerQueue>();
  #waiting = 0;
  #started = 0;
  #nextId = 1;
  #closed = false;

  constructor(options: MarkdownRenderPoolOptions = {}) {
    this.workers = options.workers ?? DEFAULT_RENDER_WORKERS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_RENDER_DEADLINE_MS;
    this.maxHtmlBytes = options.maxHtmlBytes ?? MAX_HTML_BYTES;
    this.memoryMb = options.memoryMb ?? DEFAULT_RENDER_MEMORY_MB;
    this.textsPerCaller = options.textsPerCaller ?? DEFAULT_RENDER_TEXTS_PER_CALLER;
    this.retryAfterSeconds = Math.max(1, Math.ceil(this.deadlineMs / 1000));
    if (!Number.isInteger(this.workers) || this.workers < 1) throw new RangeError(`workers must be a positive integer, not ${this.workers}`);
    if (!(this.deadlineMs > 0)) throw new RangeError(`deadlineMs must be positive, not ${this.deadlineMs}`);
    if (!Number.isInteger(this.textsPerCaller) || this.textsPerCaller < 2) throw new RangeError(`textsPerCaller must be an integer of at least 2, not ${this.textsPerCaller}`);
  }

  /**
   * The sanitised HTML of `source`. Rejects with MarkdownLimitError when the text breaks a
   * bound, with the RESOURCE_EXHAUSTED AppError of {@link renderQueueFull} (at once) when the
   * caller already has `textsPerCaller` texts here, with the signal's reason when it aborts, and
   * with a plain Error when a worker fails otherwise or the pool is closed.
   */
  render(source: string, options: RenderOptions = {}): Promise<string> {
    return this.renderAll([source], options)[0]!;
  }

  /**
   * Renders the texts of one request: admitted together or refused together, so a request is
   * never half queued. Empty texts give '' and take no place. Each promise settles as
   * {@link render}'s.
   */
  renderAll(sources: readonly string[], options: RenderOptions = {}): Promise<string>[] {
    const caller = options.caller ?? '';
    const signal = options.signal;
    const texts = sources.filter((source) => source !== '').length;
    let refusal: unknown;
    if (this.#closed) refusal = new Error('The Markdown render pool is closed.');
    else if (texts > 0 && signal?.aborted) refusal = signal.reason;
    else if (texts > 0 && this.held(caller) + texts > this.textsPerCaller) refusal = renderQueueFull(this.textsPerCaller, this.retryAfterSeconds);
    if (refusal !== undefined) return sources.map(() => Promise.reject(refusal));
    const pending = sources.map((source) => (source === '' ? Promise.resolve('') : this.#enqueue(source, caller, signal)));
    this.#dispatch();
    return pending;
  }

  /** Texts of `caller` waiting or rendering now. */
  held(caller: string): number {
    return this.#callers.get(caller)?.held ?? 0;
  }

  /** Texts waiting and rendering now, and texts started since the pool was made. */
  stats(): RenderPoolStats {
    let rendering = 0;
    for (const slot of this.#slots) if (slot.task) rendering++;
    return { waiting: this.#waiting, rendering, started: this.#started };
  }

  /** Stops every worker and refuses waiting and later texts. Safe to call more than once. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new Error('The Markdown render pool is closed.');
    this.#failWaiting(closed);
    await Promise.all([...this.#slots].map((slot) => this.#retire(slot, closed)));
  }

  #enqueue(source: string, caller: string, signal: AbortSignal | undefined): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const task: Task = { request: { id: this.#nextId++, source, maxHtmlBytes: this.maxHtmlBytes }, caller, resolve, reject, signal };
      let queue = this.#callers.get(caller);
      if (!queue) {
        queue = { waiting: [], held: 0, lastStarted: 0 };
        this.#callers.set(caller, queue);
      }
      queue.waiting.push(task);
      queue.held++;
      this.#waiting++;
      if (signal) {
        task.onAbort = () => this.#abort(task);
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
    });
  }

  /** Most workers one caller's texts may hold at once: all but one, so one is always left for everyone else. */
  get workersPerCaller(): number {
    return Math.max(1, this.workers - 1);
  }

  /** Workers a caller holds: its texts rendering, and replacements starting for it. */
  #holding(caller: string, queue: CallerQueue): number {
    let starting = 0;
    for (const slot of this.#slots) if (!slot.ready && slot.reservedFor === caller) starting++;
    return queue.held - queue.waiting.length + starting;
  }

  /** Texts that may start now: each caller's waiting texts, up to its free share of workers. */
  #runnable(): number {
    let runnable = 0;
    for (const [caller, queue] of this.#callers) runnable += Math.min(queue.waiting.length, Math.max(0, this.workersPerCaller - this.#holding(caller, queue)));
    return runnable;
  }

  /**
   * The next text for `slot`: a text of the caller the slot was started for, if it has one;
   * otherwise the oldest of the waiting caller whose text started longest ago (first come among
   * equals), among callers holding fewer than their share of workers.
   */
  #next(slot: Slot): Task | undefined {
    const reserved = slot.reservedFor === undefined ? undefined : this.#callers.get(slot.reservedFor);
    slot.reservedFor = undefined;
    let turn: CallerQueue | undefined = reserved !== undefined && reserved.waiting.length > 0 ? reserved : undefined;
    if (!turn) {
      for (const [caller, queue] of this.#callers) {
        if (queue.waiting.length > 0 && this.#holding(caller, queue) < this.workersPerCaller && (!turn || queue.lastStarted < turn.lastStarted)) turn = queue;
      }
    }
    if (!turn) return undefined;
    this.#waiting--;
    turn.lastStarted = this.#started + 1;
    return turn.waiting.shift();
  }

  /** Gives waiting texts to idle workers, and starts workers for the rest (up to the size). */
  #dispatch(): void {
    // Workers starting for no one in particular; one started for a caller counts in its share.
    let starting = 0;
    for (const slot of this.#slots) {
      if (!slot.ready) {
        if (slot.reservedFor === undefined) starting++;
      } else if (!slot.task) {
        const task = this.#next(slot);
        if (task) this.#start(slot, task);
      }
    }
    while (this.#runnable() > starting && this.#slots.size < this.workers) {
      this.#spawn();
      starting++;
    }
  }

  #spawn(reservedFor?: string): void {
    const slot: Slot = { worker: startWorker(this.memoryMb), ready: false, reservedFor };
    this.#slots.add(slot);
    slot.worker.on('message', (reply: WorkerReply) => this.#onReply(slot, reply));
    slot.worker.on('error', (error) => this.#onExit(slot, isOutOfMemory(error) ? this.#tooComplex() : error));
    slot.worker.on('exit', (code) => this.#onExit(slot, new Error(`A Markdown render worker exited with code ${code}.`)));
  }

  #start(slot: Slot, task: Task): void {
    slot.task = task;
    task.slot = slot;
    this.#started++;
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
      if (reply.type === 'failed') this.#settle(task, new Error(`Rendering Markdown failed: ${reply.message}`));
      else if (reply.outcome.ok) this.#settle(task, undefined, reply.outcome.html);
      else this.#settle(task, new MarkdownLimitError('too_large', `The Markdown renders to more than ${this.maxHtmlBytes} bytes of HTML.`));
    }
    this.#dispatch();
    if (!slot.task) slot.worker.unref();
  }

  /** A text whose signal aborted: dropped from its queue, or its worker terminated. */
  #abort(task: Task): void {
    const reason: unknown = task.signal?.reason;
    if (task.slot) {
      void this.#retire(task.slot, reason);
      this.#dispatch();
      return;
    }
    const waiting = this.#callers.get(task.caller)?.waiting;
    const index = waiting?.indexOf(task) ?? -1;
    if (index === -1) return;
    waiting!.splice(index, 1);
    this.#waiting--;
    this.#settle(task, reason);
  }

  /** Settles a text once: frees its caller's place and stops listening to its signal. */
  #settle(task: Task, error: unknown, html?: string): void {
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
    task.onAbort = undefined;
    task.slot = undefined;
    const queue = this.#callers.get(task.caller);
    if (queue && --queue.held === 0) this.#callers.delete(task.caller);
    if (error === undefined) task.resolve(html!);
    else task.reject(error);
  }

  #failWaiting(error: Error): void {
    const waiting = [...this.#callers.values()].flatMap((queue) => queue.waiting.splice(0));
    this.#waiting = 0;
    for (const task of waiting) this.#settle(task, error);
  }

  #tooComplex(): MarkdownLimitError {
    return new MarkdownLimitError('too_complex', `The Markdown needs more than ${this.memoryMb} MiB of memory to render.`);
  }

  #onDeadline(slot: Slot): void {
    const caller = slot.task?.caller;
    void this.#retire(slot, new MarkdownLimitError('too_slow', `The Markdown takes too long to render (more than ${this.deadlineMs} ms).`));
    // The replacement is the slow caller's: its next text waits for it, not for the worker left for others.
    if (caller !== undefined && this.#callers.get(caller)?.waiting.length) this.#spawn(caller);
    this.#dispatch();
  }

  /** A worker that failed or exited on its own: its text fails; one that never got ready fails every waiting text. */
  #onExit(slot: Slot, error: Error): void {
    if (!this.#slots.has(slot)) return;
    const neverReady = !slot.ready;
    void this.#retire(slot, error);
    if (neverReady) this.#failWaiting(error);
    else this.#dispatch();
  }

  #finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.task = undefined;
  }

  /** Takes a worker out of the pool, fails its text with `error`, and terminates it. */
  async #retire(slot: Slot, error: unknown): Promise<void> {
    if (!this.#slots.delete(slot)) return;
    const task = slot.task;
    this.#finish(slot);
    if (task) this.#settle(task, error);
    slot.worker.unref();
    await slot.worker.terminate();
  }
}

/**
 * The refusal of a caller who already has `textsPerCaller` texts waiting or rendering
 * (docs/api/foundation.md, "Markdown"): RESOURCE_EXHAUSTED with detail reason `rate_limited` and
 * `retryAfterSeconds`, which the gateway answers as `429 rate_limited` with `Retry-After`.
 */
export function renderQueueFull(textsPerCaller: number, retryAfterSeconds: number): AppError {
  const detail = `Too many of your texts are waiting to be rendered (at most ${textsPerCaller} at once): retry in ${retryAfterSeconds} s.`;
  return new AppError(ErrorCode.RESOURCE_EXHAUSTED, detail, { details: [{ reason: 'rate_limited', detail, retryAfterSeconds }] });
}

function isOutOfMemory(error: Error): boolean {
  return (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
}

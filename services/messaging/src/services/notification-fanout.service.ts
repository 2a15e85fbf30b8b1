import type { Logger } from '@inkwell/logging';
import type { NotificationFanoutRepository } from '../repositories/notification-fanout.repository.js';

/** Settings of the fan-out worker. */
export interface FanoutWorkerOptions {
  /** Recipients per chunk: one INSERT … SELECT and one commit each (default 10,000). */
  chunkSize?: number;
  /** How often an idle worker looks for queued fan-outs while no notification can wake it (default 200 ms). */
  idleIntervalMs?: number;
  /** How often it looks while notifications wake it (default 2 s): only a safety net then. */
  listeningIntervalMs?: number;
  /** Chunks run at the same time, each on its own connection and fan-out slice (default 2). */
  workers?: number;
  /** Whether a NOTIFY on a queued fan-out reaches {@link NotificationFanoutService.wake} now (a ChannelListener's); none: never. */
  isListening?: () => boolean;
}

/**
 * Works off the queued fan-outs in the background (docs/api/updates.md, "Fan-out model"): each of
 * `workers` loops runs one chunk after another, each committed on its own, the fan-out slice that
 * waited longest first. Queuing a fan-out raises a NOTIFY (FANOUT_CHANNEL) whose listener calls
 * `wake`, so idle loops start at once; they also look every `listeningIntervalMs` as a safety net,
 * and every `idleIntervalMs` while nothing listens. Loops and replicas share the work: a slice in
 * a chunk is skipped by the others. A failing chunk is logged and tried again after the idle
 * interval; it never stops the worker.
 */
export class NotificationFanoutService {
  readonly #chunkSize: number;
  readonly #idleIntervalMs: number;
  readonly #listeningIntervalMs: number;
  readonly #workers: number;
  readonly #isListening: () => boolean;
  #running: Promise<unknown> | undefined;
  #stopping: AbortController | undefined;
  /** Counts wake-ups, so a loop that was checking when one came does not go to sleep on it. */
  #wakeups = 0;
  readonly #sleepers = new Set<() => void>();

  constructor(
    private readonly fanouts: Pick<NotificationFanoutRepository, 'runChunk' | 'anyQueued'>,
    private readonly logger: Logger,
    options: FanoutWorkerOptions = {},
  ) {
    this.#chunkSize = options.chunkSize ?? 10_000;
    this.#idleIntervalMs = options.idleIntervalMs ?? 200;
    this.#listeningIntervalMs = options.listeningIntervalMs ?? 2_000;
    this.#workers = options.workers ?? 2;
    this.#isListening = options.isListening ?? (() => false);
  }

  /** Wakes the idle loops at once: a fan-out was queued (or may have been, while nobody listened). */
  wake(): void {
    this.#wakeups++;
    for (const wake of this.#sleepers) wake();
  }

  /** Runs chunks until nothing is queued; returns how many notifications were written. */
  async drain(signal?: AbortSignal): Promise<number> {
    let inserted = 0;
    while (!signal?.aborted) {
      const chunk = await this.fanouts.runChunk(this.#chunkSize);
      if (chunk === undefined) break;
      inserted += chunk.inserted;
      if (chunk.finished) this.logger.debug({ kind: chunk.kind, subjectId: chunk.subjectId }, 'fan-out finished');
    }
    return inserted;
  }

  /** Starts the background loops (once). */
  start(): void {
    if (this.#running !== undefined) return;
    const stopping = new AbortController();
    this.#stopping = stopping;
    this.#running = Promise.all(Array.from({ length: this.#workers }, () => this.#loop(stopping.signal)));
  }

  /** Stops the loops after the chunks in flight. */
  async stop(): Promise<void> {
    this.#stopping?.abort();
    await this.#running;
    this.#running = undefined;
  }

  async #loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const wakeups = this.#wakeups;
      let failed = false;
      try {
        // An idle worker only reads; the chunk's transaction starts once there is work.
        if (await this.fanouts.anyQueued()) await this.drain(signal);
      } catch (error) {
        failed = true;
        this.logger.warn({ err: error }, 'notification fan-out chunk failed; trying again');
      }
      if (failed) await pause(this.#idleIntervalMs, signal);
      else if (wakeups === this.#wakeups) await this.#idle(signal);
    }
  }

  /** Waits for a wake-up, the stop, or the polling interval, whichever comes first. */
  async #idle(signal: AbortSignal): Promise<void> {
    const controller = new AbortController();
    const wake = () => controller.abort();
    this.#sleepers.add(wake);
    signal.addEventListener('abort', wake, { once: true });
    try {
      await pause(this.#isListening() ? this.#listeningIntervalMs : this.#idleIntervalMs, controller.signal);
    } finally {
      this.#sleepers.delete(wake);
      signal.removeEventListener('abort', wake);
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

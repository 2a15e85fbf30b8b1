import { describe, expect, it } from 'vitest';
import { createLogger } from '@inkwell/logging';
import { eventually } from '@inkwell/testing';
import type { FanoutChunk } from '../repositories/notification-fanout.repository.js';
import { NotificationFanoutService } from './notification-fanout.service.js';

/** A queue of chunks handed out one per runChunk; the sizes asked for are recorded. */
class QueuedChunks {
  readonly asked: number[] = [];
  /** How many times a worker looked for work. */
  looked = 0;
  constructor(private readonly chunks: FanoutChunk[]) {}
  add(queued: FanoutChunk): void {
    this.chunks.push(queued);
  }
  async anyQueued(): Promise<boolean> {
    this.looked++;
    return this.chunks.length > 0;
  }
  async runChunk(size: number): Promise<FanoutChunk | undefined> {
    this.asked.push(size);
    return this.chunks.shift();
  }
}

const chunk = (inserted: number, finished = false): FanoutChunk => ({ kind: 6, subjectId: '1', recipients: inserted, inserted, finished });
const logger = createLogger('fanout-test');

describe('NotificationFanoutService', () => {
  it('drains the queue chunk by chunk with its chunk size', async () => {
    const queue = new QueuedChunks([chunk(3), chunk(3), chunk(1, true)]);
    const service = new NotificationFanoutService(queue, logger, { chunkSize: 3 });
    expect(await service.drain()).toBe(7);
    expect(queue.asked).toEqual([3, 3, 3, 3]);
  });

  it('works off what is queued in the background until stopped', async () => {
    const queue = new QueuedChunks([chunk(2), chunk(2, true)]);
    const service = new NotificationFanoutService(queue, logger, { idleIntervalMs: 5, workers: 2 });
    service.start();
    const deadline = Date.now() + 5_000;
    while ((await queue.anyQueued()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    await service.stop();
    expect(await queue.anyQueued()).toBe(false);
  });

  it('starts at once when woken while it listens, instead of at its next poll', async () => {
    const queue = new QueuedChunks([]);
    const service = new NotificationFanoutService(queue, logger, { listeningIntervalMs: 600_000, workers: 1, isListening: () => true });
    service.start();
    // Idle now: the first look found nothing, and the next poll is ten minutes away.
    await eventually(() => queue.asked.length === 0 && queue.looked > 0, { timeoutMs: 5_000 });
    queue.add(chunk(4, true));
    service.wake();
    await eventually(async () => !(await queue.anyQueued()), { timeoutMs: 5_000, what: 'the queued chunk done after the wake-up' });
    await service.stop();
    expect(queue.asked).toEqual([10_000, 10_000]);
  });
});

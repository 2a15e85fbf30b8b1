import { describe, expect, it } from 'vitest';
import { createLogger } from '@inkwell/logging';
import type { FanoutChunk } from '../repositories/notification-fanout.repository.js';
import { NotificationFanoutService } from './notification-fanout.service.js';

/** A queue of chunks handed out one per runChunk; the sizes asked for are recorded. */
class QueuedChunks {
  readonly asked: number[] = [];
  constructor(private readonly chunks: FanoutChunk[]) {}
  async anyQueued(): Promise<boolean> {
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
});

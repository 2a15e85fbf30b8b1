import type { Logger } from '@inkwell/logging';
import type { NotificationRepository } from '../repositories/notification.repository.js';
import { pause } from './notification-fanout.service.js';

/**
 * Deletes notifications past their 90 days (docs/api/updates.md, "Notification kinds and
 * visibility") every `intervalMs` (default an hour), in batches. Lists stop showing them at 90
 * days whether or not the purge has run yet. Replicas may purge at the same time: the deletes
 * are idempotent.
 */
export class NotificationRetentionService {
  #running: Promise<void> | undefined;
  #stopping: AbortController | undefined;

  constructor(
    private readonly notifications: Pick<NotificationRepository, 'purgeExpired'>,
    private readonly logger: Logger,
    private readonly intervalMs = 60 * 60 * 1000,
  ) {}

  /** Deletes the expired notifications now; returns how many. */
  async purge(): Promise<number> {
    const deleted = await this.notifications.purgeExpired();
    if (deleted > 0) this.logger.info({ deleted }, 'expired notifications deleted');
    return deleted;
  }

  /** Starts purging now and every interval (once). */
  start(): void {
    if (this.#running !== undefined) return;
    const stopping = new AbortController();
    this.#stopping = stopping;
    this.#running = (async () => {
      while (!stopping.signal.aborted) {
        await this.purge().catch((error: unknown) => this.logger.warn({ err: error }, 'notification purge failed; trying again later'));
        await pause(this.intervalMs, stopping.signal);
      }
    })();
  }

  /** Stops after the purge in flight. */
  async stop(): Promise<void> {
    this.#stopping?.abort();
    await this.#running;
    this.#running = undefined;
  }
}

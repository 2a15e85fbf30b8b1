import type { Logger } from '@inkwell/logging';
import type { DeliveryRepository } from '../repositories/delivery.repository.js';

/** How long finished deliveries stay in the log (docs/api/webhooks.md, "The delivery log"). */
export const LOG_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 5_000;
const MAX_BATCHES = 20;

/**
 * Deletes finished deliveries older than 30 days, and events no delivery refers to, hourly in
 * bounded batches (the next sweep goes on). Returns what stops it.
 */
export function startLogRetention(deliveries: Pick<DeliveryRepository, 'prune'>, logger: Logger): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      for (let batch = 0; batch < MAX_BATCHES; batch++) {
        if ((await deliveries.prune(new Date(Date.now() - LOG_RETENTION_MS), BATCH)) === 0) break;
      }
    } catch (error) {
      logger.warn({ err: error }, 'could not prune the webhook delivery log');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

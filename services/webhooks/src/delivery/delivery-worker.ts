import type { Logger } from '@inkwell/logging';
import type { ClaimedDelivery, DeliveryRepository } from '../repositories/delivery.repository.js';
import type { DeliveryService } from '../services/delivery.service.js';

/** Limits of the worker (docs/api/webhooks.md, "Outbound safety"). */
export interface DeliveryWorkerLimits {
  /** Attempts in flight in this process, across endpoints. */
  concurrency: number;
  /** Attempts in flight per endpoint. */
  perEndpointConcurrency: number;
  /** Attempts started per endpoint per second. */
  perEndpointRate: number;
  /** How often the queue is polled while it has deliveries the worker could not take yet (endpoints at their caps, all slots busy). */
  pollIntervalMs: number;
  /**
   * How often it is polled after a claim found nothing due (new deliveries and finished attempts
   * wake the worker at once; only retries fall due unannounced, the first one `retry base` after
   * a failure): an idle process stays idle.
   */
  idlePollMs: number;
  /** How long a claim holds (longer than an attempt's 10 s deadline). */
  leaseMs: number;
}

/** Default limits: 64 in flight, 2 per endpoint, 20 attempts per endpoint per second, polled every 100 ms (every second when nothing is due). */
export const DEFAULT_WORKER_LIMITS: DeliveryWorkerLimits = { concurrency: 64, perEndpointConcurrency: 2, perEndpointRate: 20, pollIntervalMs: 100, idlePollMs: 1_000, leaseMs: 30_000 };

/** Options of {@link DeliveryWorker}. */
export interface DeliveryWorkerOptions {
  deliveries: Pick<DeliveryRepository, 'claim'>;
  service: Pick<DeliveryService, 'attempt'>;
  logger: Logger;
  limits?: Partial<DeliveryWorkerLimits>;
  /** Starts telling the worker when deliveries were queued (listenForDeliveries); returns what stops it. Without it the worker only polls. */
  wakeups?: (wake: () => void) => () => Promise<void>;
}

/**
 * The delivery loop (docs/api/webhooks.md, "Retries"): claims due deliveries (FOR UPDATE SKIP
 * LOCKED with a lease, so replicas share the queue), at most `perEndpointConcurrency` in flight
 * and `perEndpointRate` started per second per endpoint, `concurrency` in all: an endpoint that
 * is slow or at its cap is left out of the next claims (one with room gets only that much), so it
 * never delays the others. It claims again as soon as deliveries are queued (`wakeups`) or an
 * attempt ends, and polls every `pollIntervalMs` while deliveries wait for room, every
 * `idlePollMs` for retries that fall due once nothing was.
 */
export class DeliveryWorker {
  readonly #options: DeliveryWorkerOptions;
  readonly #limits: DeliveryWorkerLimits;
  readonly #inFlight = new Map<string, number>();
  readonly #tasks = new Set<Promise<void>>();
  /** Start times of the attempts of the last second, per endpoint. */
  readonly #recentStarts = new Map<string, number[]>();
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Set by a wake-up that came while the loop was claiming: the next pause ends at once. */
  #woken = false;
  #stopWakeups: (() => Promise<void>) | undefined;

  constructor(options: DeliveryWorkerOptions) {
    this.#options = options;
    this.#limits = { ...DEFAULT_WORKER_LIMITS, ...options.limits };
  }

  /** Starts the loop (idempotent). */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#stopWakeups = this.#options.wakeups?.(() => this.#wakeUp());
    this.#loop = this.#run();
  }

  /** Stops claiming and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#stopWakeups?.();
    this.#wake?.();
    await this.#loop;
    await Promise.allSettled([...this.#tasks]);
  }

  async #run(): Promise<void> {
    const { logger } = this.#options;
    while (this.#running) {
      let claimed: ClaimedDelivery[] = [];
      const free = this.#limits.concurrency - this.#tasks.size;
      if (free > 0) {
        try {
          const { full, remaining } = this.#endpointCapacity();
          claimed = await this.#options.deliveries.claim({
            limit: free,
            perEndpoint: this.#limits.perEndpointConcurrency,
            skipEndpoints: full,
            remaining,
            leaseMs: this.#limits.leaseMs,
          });
        } catch (error) {
          logger.warn({ err: error }, 'could not claim webhook deliveries; retrying');
        }
      }
      for (const delivery of claimed) this.#startAttempt(delivery);
      // More may be due at once when the claim was full; else wait for the poll or a finished attempt.
      if (claimed.length === 0) await this.#pause(this.#limits.idlePollMs);
      else if (claimed.length < free) await this.#pause(this.#limits.pollIntervalMs);
      else if (this.#tasks.size >= this.#limits.concurrency) await this.#pause(this.#limits.pollIntervalMs);
    }
  }

  #startAttempt(delivery: ClaimedDelivery): void {
    const endpoint = delivery.endpointId;
    this.#inFlight.set(endpoint, (this.#inFlight.get(endpoint) ?? 0) + 1);
    const starts = this.#recentStarts.get(endpoint) ?? [];
    starts.push(Date.now());
    this.#recentStarts.set(endpoint, starts);
    const task = this.#options.service
      .attempt(delivery)
      .catch((error: unknown) => this.#options.logger.error({ err: error, deliveryId: delivery.id }, 'webhook delivery attempt failed unexpectedly; it is retried when its claim expires'))
      .finally(() => {
        const left = (this.#inFlight.get(endpoint) ?? 1) - 1;
        if (left === 0) this.#inFlight.delete(endpoint);
        else this.#inFlight.set(endpoint, left);
        this.#tasks.delete(task);
        this.#wakeUp();
      });
    this.#tasks.add(task);
  }

  /**
   * Endpoints that may take no attempt now (at their cap of attempts in flight here, or of attempts
   * started in the last second), and how many more the others with attempts in flight may take.
   */
  #endpointCapacity(): { full: string[]; remaining: Map<string, number> } {
    const now = Date.now();
    const full = new Set<string>();
    const remaining = new Map<string, number>();
    for (const [endpoint, inFlight] of this.#inFlight) {
      if (inFlight >= this.#limits.perEndpointConcurrency) full.add(endpoint);
      else remaining.set(endpoint, this.#limits.perEndpointConcurrency - inFlight);
    }
    for (const [endpoint, starts] of this.#recentStarts) {
      const recent = starts.filter((at) => now - at < 1_000);
      if (recent.length === 0) this.#recentStarts.delete(endpoint);
      else {
        this.#recentStarts.set(endpoint, recent);
        const left = this.#limits.perEndpointRate - recent.length;
        if (left <= 0) full.add(endpoint);
        else if (left < (remaining.get(endpoint) ?? this.#limits.perEndpointConcurrency)) remaining.set(endpoint, left);
      }
    }
    for (const endpoint of full) remaining.delete(endpoint);
    return { full: [...full], remaining };
  }

  /** Ends the current pause, or the next one if the loop is claiming now. */
  #wakeUp(): void {
    this.#woken = true;
    this.#wake?.();
  }

  #pause(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#woken = false;
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}

import type { Logger } from '@inkwell/logging';
import { failedTooLong, nextAttemptAt, type RetrySchedule } from '../domain/retry-schedule.js';
import type { AppDirectoryRepository } from '../repositories/app-directory.repository.js';
import type { ClaimedDelivery, DeliveryRepository } from '../repositories/delivery.repository.js';

/** One signed HTTP attempt (WebhookSender.send with the signature headers). */
export interface AttemptSender {
  send(attempt: { url: string; headers: Readonly<Record<string, string>>; body: string }): Promise<{ ok: boolean; statusCode?: number; error?: string; latencyMs?: number }>;
}

/** Opens sealed secrets (SecretBox). */
export interface SecretOpener {
  open(sealed: Buffer): string;
}

/** Signs a body with every secret given (signatureHeaders). */
export type Signer = (secrets: readonly string[], eventId: string, timestamp: Date, body: string) => Record<string, string>;

/** Told what each attempt came to (delivery-metrics.ts counts it on /metrics). */
export interface DeliveryObserver {
  /** An attempt ended: `succeeded`, or its error (`http_status`, `timeout`, …); `eventTime` is the event's. */
  attempted(outcome: string, eventTime: Date): void;
  /** A private delivery was dropped: its user no longer grants the app the scope. */
  dropped(): void;
  /** An endpoint was disabled. */
  disabled(): void;
}

/** What the delivery rules need. */
export interface DeliveryServiceDeps {
  deliveries: Pick<DeliveryRepository, 'recordSuccess' | 'recordFailure' | 'drop' | 'release' | 'disableEndpoint'>;
  apps: Pick<AppDirectoryRepository, 'scopesOf'>;
  sender: AttemptSender;
  secrets: SecretOpener;
  sign: Signer;
  schedule: RetrySchedule;
  logger: Logger;
  observer?: DeliveryObserver;
}

/** How long a delivery waits when the users service cannot say whether it may be sent. */
const AUTHORIZATION_RETRY_MS = 2_000;

/**
 * One attempt of one claimed delivery (docs/api/webhooks.md, "Retries", "Private events"): a
 * private event is sent only if its user still grants the app the event's scope (else the
 * delivery is dropped); the body is signed with the endpoint's secrets and sent; a 2xx succeeds,
 * anything else is retried with backoff and full jitter until the 3-day window is used up, and an
 * endpoint whose attempts have all failed for 3 days is disabled (its owner told by the
 * WebhookEndpointDisabled event the repository writes with it).
 */
export class DeliveryService {
  constructor(private readonly deps: DeliveryServiceDeps) {}

  async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { deps } = this;
    if (delivery.userId !== undefined && delivery.scope !== undefined) {
      let granted: Map<string, string[]>;
      try {
        granted = await deps.apps.scopesOf(delivery.userId, [delivery.appId]);
      } catch (error) {
        deps.logger.warn({ err: error, deliveryId: delivery.id }, 'could not check the authorization of a private delivery; retrying');
        await deps.deliveries.release(delivery.id, new Date(Date.now() + AUTHORIZATION_RETRY_MS));
        return;
      }
      if (granted.get(delivery.appId)?.includes(delivery.scope) !== true) {
        await deps.deliveries.drop(delivery.id);
        deps.observer?.dropped();
        return;
      }
    }
    const secrets = [deps.secrets.open(delivery.secretSealed), ...(delivery.previousSecretSealed ? [deps.secrets.open(delivery.previousSecretSealed)] : [])];
    const headers = deps.sign(secrets, delivery.eventId, new Date(), delivery.payload);
    const outcome = await deps.sender.send({ url: delivery.url, headers, body: delivery.payload });
    const record = { ...(outcome.statusCode === undefined ? {} : { responseCode: outcome.statusCode }), error: outcome.error ?? '', ...(outcome.latencyMs === undefined ? {} : { latencyMs: outcome.latencyMs }) };
    deps.observer?.attempted(outcome.ok ? 'succeeded' : (outcome.error ?? 'failed'), delivery.eventTime);
    if (outcome.ok) {
      await deps.deliveries.recordSuccess(delivery, record);
      return;
    }
    const now = new Date();
    const next = nextAttemptAt(deps.schedule, delivery.attempts + 1, delivery.windowStart, now);
    const failingSince = await deps.deliveries.recordFailure(delivery, record, next);
    if (failingSince !== undefined && failedTooLong(deps.schedule, failingSince, now)) {
      const disabled = await deps.deliveries.disableEndpoint(delivery.endpointId);
      if (disabled) {
        deps.logger.warn({ endpointId: delivery.endpointId, appId: disabled.appId }, 'webhook endpoint disabled after failing for the whole retry window');
        deps.observer?.disabled();
      }
    }
  }
}

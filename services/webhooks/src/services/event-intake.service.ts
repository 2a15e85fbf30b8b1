import { EVENT_TYPES } from '../domain/event-types.js';
import { payloadOf, type WebhookEvent } from '../domain/webhook-event.js';
import type { AppDirectoryRepository } from '../repositories/app-directory.repository.js';
import type { EventIntakeRepository } from '../repositories/event-intake.repository.js';

/**
 * Turns one webhook event into pending deliveries (docs/api/webhooks.md, "Design"): a public event
 * for every active endpoint subscribed to its type; a private one only for the endpoints of apps
 * the user it concerns grants the event's scope now (asked of the users service; the worker asks
 * again before each attempt, so a later revocation still stops it).
 */
export class EventIntakeService {
  constructor(
    private readonly store: Pick<EventIntakeRepository, 'subscribedApps' | 'enqueue'>,
    private readonly apps: Pick<AppDirectoryRepository, 'scopesOf'>,
    /** The gateway's public `/api/v1` URL, for the payloads' links.self. */
    private readonly apiBaseUrl: string,
  ) {}

  /** Queues `event`; returns how many deliveries it made. Idempotent per event id. */
  async ingest(event: WebhookEvent): Promise<number> {
    const scope: string | undefined = EVENT_TYPES[event.type].scope;
    const payload = JSON.stringify(payloadOf(event, this.apiBaseUrl));
    if (scope === undefined || event.userId === undefined) return this.store.enqueue(event, undefined, payload);
    const subscribed = await this.store.subscribedApps(event.type);
    if (subscribed.length === 0) return 0;
    const granted = await this.apps.scopesOf(event.userId, subscribed);
    const allowed = subscribed.filter((app) => granted.get(app)?.includes(scope) === true);
    return this.store.enqueue(event, scope, payload, allowed);
  }
}

import type { Logger } from '@inkwell/logging';
import { EVENT_TYPES } from '../domain/event-types.js';
import { payloadOf, type WebhookEvent } from '../domain/webhook-event.js';
import type { AppDirectoryRepository } from '../repositories/app-directory.repository.js';
import type { EventIntakeRepository, QueuedDelivery, StoredEvent, SubscribedEndpoint } from '../repositories/event-intake.repository.js';

/** Pending deliveries an endpoint may have before the oldest fail (docs/api/webhooks.md, "Backlog cap"). */
export const DEFAULT_MAX_PENDING_PER_ENDPOINT = 10_000;

/** Users whose grants are asked of the users service at once, per batch of events. */
const GRANT_LOOKUPS_IN_FLIGHT = 8;

/** Options of {@link EventIntakeService}. */
export interface EventIntakeServiceOptions {
  store: Pick<EventIntakeRepository, 'subscribedEndpoints' | 'enqueue' | 'failBeyondBacklog'>;
  apps: Pick<AppDirectoryRepository, 'scopesOf'>;
  /** The gateway's public `/api/v1` URL, for the payloads' links.self. */
  apiBaseUrl: string;
  logger: Logger;
  /** Pending deliveries per endpoint above which the oldest fail (default {@link DEFAULT_MAX_PENDING_PER_ENDPOINT}). */
  maxPendingPerEndpoint?: number;
}

/**
 * Turns webhook events into pending deliveries, a batch at a time (docs/api/webhooks.md,
 * "Design"): a public event for every active endpoint subscribed to its type; a private one only
 * for the endpoints of apps the user it concerns grants the event's scope now (one question to the
 * users service per user of the batch; the worker asks again before each attempt, so a later
 * revocation still stops it). Endpoints over their backlog cap lose their oldest pending deliveries.
 */
export class EventIntakeService {
  readonly #options: EventIntakeServiceOptions;

  constructor(options: EventIntakeServiceOptions) {
    this.#options = options;
  }

  /** Queues `events` (in their order); returns how many deliveries it made. Idempotent per event id. */
  async ingest(events: readonly WebhookEvent[]): Promise<number> {
    const { store, apiBaseUrl, logger } = this.#options;
    if (events.length === 0) return 0;
    const endpoints = await store.subscribedEndpoints([...new Set(events.map((event) => event.type))]);
    if (endpoints.length === 0) return 0;
    const grants = await this.#grantsOf(events, endpoints);
    const stored: StoredEvent[] = [];
    const deliveries: QueuedDelivery[] = [];
    for (const event of events) {
      const scope: string | undefined = EVENT_TYPES[event.type].scope;
      const isPrivate = scope !== undefined && event.userId !== undefined;
      const granted = isPrivate ? grants.get(event.userId!) : undefined;
      const takers = endpoints.filter((endpoint) => endpoint.eventTypes.includes(event.type) && (!isPrivate || granted?.get(endpoint.appId)?.includes(scope) === true));
      if (takers.length === 0) continue;
      const payload = JSON.stringify(payloadOf(event, apiBaseUrl));
      stored.push({ id: event.id, type: event.type, occurredAt: event.occurredAt, payload, ...(isPrivate ? { userId: event.userId!, scope } : {}) });
      for (const endpoint of takers) deliveries.push({ endpointId: endpoint.id, eventId: event.id, eventTime: event.occurredAt });
    }
    const queued = await store.enqueue(stored, deliveries);
    if (queued > 0) {
      const failed = await store.failBeyondBacklog([...new Set(deliveries.map((delivery) => delivery.endpointId))], this.#options.maxPendingPerEndpoint ?? DEFAULT_MAX_PENDING_PER_ENDPOINT);
      for (const [endpointId, count] of failed) logger.warn({ endpointId, failed: count }, 'webhook endpoint over its backlog cap: its oldest pending deliveries failed (backlog_full)');
    }
    return queued;
  }

  /** The scopes each user of the batch's private events grants the apps subscribed to those events' types. */
  async #grantsOf(events: readonly WebhookEvent[], endpoints: readonly SubscribedEndpoint[]): Promise<Map<string, Map<string, string[]>>> {
    const appsPerUser = new Map<string, Set<string>>();
    for (const event of events) {
      if (EVENT_TYPES[event.type].scope === undefined || event.userId === undefined) continue;
      const apps = appsPerUser.get(event.userId) ?? new Set<string>();
      for (const endpoint of endpoints) if (endpoint.eventTypes.includes(event.type)) apps.add(endpoint.appId);
      appsPerUser.set(event.userId, apps);
    }
    const grants = new Map<string, Map<string, string[]>>();
    const users = [...appsPerUser].filter(([, apps]) => apps.size > 0);
    for (let start = 0; start < users.length; start += GRANT_LOOKUPS_IN_FLIGHT) {
      const answers = await Promise.all(users.slice(start, start + GRANT_LOOKUPS_IN_FLIGHT).map(async ([userId, apps]) => [userId, await this.#options.apps.scopesOf(userId, [...apps])] as const));
      for (const [userId, granted] of answers) grants.set(userId, granted);
    }
    return grants;
  }
}

import type { EventType } from './event-types.js';

/** The API resource an event is about: the payload names it, and the app fetches it itself. */
export interface ResourceRef {
  /** JSON:API type, e.g. `stories`. */
  type: string;
  id: string;
  /** Path of the resource under the public API base, e.g. `/stories/12`. */
  path: string;
}

/**
 * One change an app may be told about, derived from one Kafka event: the unit of delivery (its id
 * is the Kafka event's id, so a redelivered Kafka record makes no second delivery).
 */
export interface WebhookEvent {
  /** The Kafka event id (a UUID): the payload's `id` and the `webhook-id` header. */
  id: string;
  type: EventType;
  occurredAt: Date;
  resource: ResourceRef;
  /** For a private event, the user it concerns (recipient, author, shelf owner). */
  userId?: string;
}

/** The payload of a delivery (docs/api/webhooks.md, "Payloads"): a thin reference the app resolves with its own token. */
export interface WebhookPayload {
  id: string;
  type: EventType;
  timestamp: string;
  data: { type: string; id: string; links: { self: string } };
}

/** The payload of `event`, its `links.self` under `apiBaseUrl` (the gateway's public `/api/v1` URL). */
export function payloadOf(event: WebhookEvent, apiBaseUrl: string): WebhookPayload {
  return {
    id: event.id,
    type: event.type,
    timestamp: event.occurredAt.toISOString(),
    data: { type: event.resource.type, id: event.resource.id, links: { self: `${apiBaseUrl.replace(/\/+$/, '')}${event.resource.path}` } },
  };
}

import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  DeliveryStatusSchema,
  EventTypeListSchema,
  ListDeliveriesRequestSchema,
  RotateSecretRequestSchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  type CreateEndpointRequestSchema,
  type UpdateEndpointRequestSchema,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '@inkwell/proto/webhooks';
import { z } from 'zod';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import {
  attributeTypes as at,
  cursorPagination,
  defineDocumentSpec,
  defineListSpec,
  defineResourceSchema,
  defineWriteSpec,
  filters,
  integerRule,
  maxItems,
  protoStringIn,
  writeValues,
  type CursorPaginationSpec,
} from '../jsonapi/index.js';
import type { BodyOf } from '../routing/route-kinds.js';
import { protoEnumNames } from './proto-enum.js';
import { protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of an app's webhook endpoints. */
export const WEBHOOK_ENDPOINT_TYPE = 'webhook_endpoint';

/** The JSON:API type of the entries of an endpoint's delivery log. */
export const WEBHOOK_DELIVERY_TYPE = 'webhook_delivery';

/**
 * The event types an endpoint can subscribe to (docs/api/webhooks.md, "Event types"), in the
 * documented order: the `string.in` rule of the proto's EventTypeList, which the service enforces.
 */
export const WEBHOOK_EVENT_TYPES = protoStringIn(EventTypeListSchema.field.eventTypes, 'items');

/**
 * The endpoints an app may have (docs/api/webhooks.md, "Endpoints": the 11th is refused). Every
 * one fits one page of GET /apps/:app_id/webhooks by default.
 */
export const WEBHOOK_ENDPOINTS_PER_APP = 10;

const STATUS = protoEnumNames(DeliveryStatusSchema);

/** The states of a delivery (docs/api/webhooks.md, "Retries"): pending, succeeded, failed. */
export const WEBHOOK_DELIVERY_STATUSES = STATUS.names;

const EVENTS = { ...at.strings('The subscribed event types (docs/api/webhooks.md, "Event types").'), items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] } };

/** The attributes of an endpoint that every answer carries (the secret is not one of them). */
const ENDPOINT_ATTRIBUTES = {
  url: { ...at.string('Where deliveries are POSTed: https (http only for hosts the deployment allowlists), at most 2048 characters.'), format: 'uri' },
  events: EVENTS,
  active: at.boolean('Whether deliveries are made; false when you paused it or the service disabled it (`disabled_at`).'),
  disabled_at: at.dateTime('When the service disabled it after 3 days of failed deliveries; null otherwise. Setting `active` true clears it.', { nullable: true }),
  previous_secret_expires_at: at.dateTime('Until when the secret before the last rotation still signs deliveries (a second signature); null when only the current one signs.', { nullable: true }),
  date_created: at.dateTime(undefined, { nullable: true }),
  date_modified: at.dateTime(undefined, { nullable: true }),
};

/**
 * The webhook_endpoint type (docs/api/webhooks.md, "Endpoints"): a URL of one of your apps that
 * receives signed deliveries of the events it subscribed to. `secret` is only in the answers that
 * make one (create and rotate-secret): no request returns it again.
 */
export const WEBHOOK_ENDPOINT_SCHEMA = defineResourceSchema({
  type: WEBHOOK_ENDPOINT_TYPE,
  description: 'A URL of one of your apps that receives signed deliveries of the events it subscribed to.',
  attributes: {
    ...ENDPOINT_ATTRIBUTES,
    secret: at.string('The signing secret (`whsec_` + base64 of 32 bytes, docs/api/webhooks.md, "Signatures"): only in the answers of POST /apps/{app_id}/webhooks and of rotate-secret, never again.'),
  },
});

const ENDPOINT_FIELDS = protoResourceMapper(WebhookEndpointSchema, defineResourceSchema({ type: WEBHOOK_ENDPOINT_TYPE, attributes: ENDPOINT_ATTRIBUTES }));

/**
 * Maps a webhooks.v1 WebhookEndpoint to its JSON:API resource: `events` from `event_types`, dates
 * in ISO 8601 UTC (null when unset), `secret` only when given (a create or rotation answer), and
 * `links.self` = PUBLIC_BASE_URL/api/v1/apps/<app_id>/webhooks/<id>.
 */
export function toWebhookEndpointResource(endpoint: WebhookEndpoint, links: ApiLinks, secret?: string): ResourceObject {
  const attributes = ENDPOINT_FIELDS.attributes(endpoint);
  return resourceObject(WEBHOOK_ENDPOINT_TYPE, endpoint.id, secret === undefined ? attributes : { ...attributes, secret }, { self: links.to(webhookEndpointPath(endpoint.appId, endpoint.id)) });
}

/** The API path of an endpoint of an app. */
export function webhookEndpointPath(appId: string, endpointId: string): string {
  return `/apps/${appId}/webhooks/${endpointId}`;
}

/** The endpoint of a single-endpoint response (GetEndpoint, UpdateEndpoint), without its secret. */
export function webhookEndpointOf({ endpoint }: { readonly endpoint?: WebhookEndpoint }, links: ApiLinks): ResourceObject | null {
  return endpoint === undefined ? null : toWebhookEndpointResource(endpoint, links);
}

/** The endpoint of an answer that made a secret (CreateEndpoint, RotateSecret), with the secret: the only time it is shown. */
export function webhookEndpointWithSecretOf({ endpoint, secret }: { readonly endpoint?: WebhookEndpoint; readonly secret: string }, links: ApiLinks): ResourceObject | null {
  return endpoint === undefined ? null : toWebhookEndpointResource(endpoint, links, secret);
}

/** The endpoints of a list page. */
export function webhookEndpointsOf({ endpoints }: { readonly endpoints: readonly WebhookEndpoint[] }, links: ApiLinks): ResourceObject[] {
  return endpoints.map((endpoint) => toWebhookEndpointResource(endpoint, links));
}

/**
 * `page[size]` of GET /apps/:app_id/webhooks: an app has at most {@link WEBHOOK_ENDPOINTS_PER_APP}
 * endpoints, so the default page holds all of them; smaller pages go on by cursor.
 */
const ENDPOINT_PAGES: CursorPaginationSpec = { kind: 'cursor', defaultSize: WEBHOOK_ENDPOINTS_PER_APP, maxSize: WEBHOOK_ENDPOINTS_PER_APP };

/** GET /apps/:app_id/webhooks: oldest first, no filters, sorts or includes. */
export const WEBHOOK_ENDPOINT_LIST = defineListSpec({ resource: WEBHOOK_ENDPOINT_SCHEMA, filters: {}, pagination: ENDPOINT_PAGES });

/** GET/PATCH of one endpoint, and the answers of create and rotate-secret: `fields[webhook_endpoint]`. */
export const WEBHOOK_ENDPOINT_DOCUMENT = defineDocumentSpec({ resource: WEBHOOK_ENDPOINT_SCHEMA });

const MAX_EVENTS = maxItems(EventTypeListSchema.field.eventTypes);

/** The `events` of a write: an array of strings; which names, how many and duplicates are the service's rules (422 at `/data/attributes/events`). */
const EVENTS_WRITE = z.array(z.string({ error: 'must be strings' }), { error: 'must be an array of strings' }).meta({
  description: `1 to ${MAX_EVENTS} distinct event types of docs/api/webhooks.md, "Event types": ${WEBHOOK_EVENT_TYPES.map((name) => `\`${name}\``).join(', ')}.`,
});

/** POST /apps/:app_id/webhooks: `url` and `events` required, `active` (default true). */
export const WEBHOOK_ENDPOINT_CREATE = defineWriteSpec({
  resource: WEBHOOK_ENDPOINT_SCHEMA,
  attributes: { url: writeValues.string(), events: EVENTS_WRITE, active: writeValues.boolean() },
  required: ['url', 'events'],
});

/** PATCH /apps/:app_id/webhooks/:id: any of `url`, `events`, `active`; what is left out stays. */
export const WEBHOOK_ENDPOINT_UPDATE = defineWriteSpec({ resource: WEBHOOK_ENDPOINT_SCHEMA, attributes: WEBHOOK_ENDPOINT_CREATE.attributes });

/** The CreateEndpoint request of a POST body. */
export function createEndpointRequest(appId: string, { attributes }: BodyOf<typeof WEBHOOK_ENDPOINT_CREATE>): MessageInitShape<typeof CreateEndpointRequestSchema> {
  return { appId, url: attributes.url ?? '', ...(attributes.events === undefined ? {} : { eventTypes: { eventTypes: [...attributes.events] } }), ...(attributes.active === undefined ? {} : { active: attributes.active }) };
}

/** The UpdateEndpoint request of a PATCH body: only the members sent are changed. */
export function updateEndpointRequest(appId: string, id: string, { attributes }: BodyOf<typeof WEBHOOK_ENDPOINT_UPDATE>): MessageInitShape<typeof UpdateEndpointRequestSchema> {
  return {
    appId,
    id,
    ...(attributes.url === undefined ? {} : { url: attributes.url }),
    ...(attributes.events === undefined ? {} : { eventTypes: { eventTypes: [...attributes.events] } }),
    ...(attributes.active === undefined ? {} : { active: attributes.active }),
  };
}

/** The JSON:API type of the body of POST /apps/:app_id/webhooks/:id/rotate-secret. */
export const WEBHOOK_SECRET_ROTATION_TYPE = 'webhook_secret_rotation';

const GRACE = integerRule(RotateSecretRequestSchema.field.gracePeriodSeconds);

/**
 * The body of rotate-secret (docs/api/webhooks.md, "Signatures"): how long the previous secret
 * keeps signing. Write-only: the answer is the endpoint with its new secret.
 */
export const WEBHOOK_SECRET_ROTATION_SCHEMA = defineResourceSchema({
  type: WEBHOOK_SECRET_ROTATION_TYPE,
  description: 'Replaces the signing secret of an endpoint; the previous one keeps signing for the grace period.',
  attributes: {
    grace_period_seconds: at.integer(`How long the previous secret keeps signing too: ${GRACE.min} to ${GRACE.max} seconds; left out, 86400 (24 h); 0 stops it at once (a leaked secret).`, {
      minimum: GRACE.min,
      maximum: GRACE.max,
    }),
  },
});

/** What rotate-secret accepts: `{"data":{"type":"webhook_secret_rotation"}}`, optionally with `grace_period_seconds` (its range is the service's rule). */
export const WEBHOOK_SECRET_ROTATION_WRITE = defineWriteSpec({ resource: WEBHOOK_SECRET_ROTATION_SCHEMA, attributes: { grace_period_seconds: writeValues.int32() } });

/**
 * The webhook_delivery type (docs/api/webhooks.md, "The delivery log"): one event sent, or to be
 * sent, to one endpoint, with the outcome of its latest attempt.
 */
export const WEBHOOK_DELIVERY_SCHEMA = defineResourceSchema({
  type: WEBHOOK_DELIVERY_TYPE,
  description: 'One event sent (or to be sent) to one of your webhook endpoints, with the outcome of its latest attempt.',
  attributes: {
    event_id: { ...at.string('The event id (a UUID): the payload\'s `id` and the `webhook-id` header, the same on every attempt and redelivery.'), format: 'uuid' },
    event_type: at.enumeration(WEBHOOK_EVENT_TYPES),
    status: at.enumeration(WEBHOOK_DELIVERY_STATUSES, '`pending` (not sent yet, or waiting for its next attempt), `succeeded` (a 2xx within 10 s) or `failed` (given up).'),
    attempts: at.integer('Attempts made so far.', { minimum: 0 }),
    last_response_code: at.integer('The HTTP status of the latest attempt; null when it got no response.', { nullable: true }),
    last_error: at.string('Why the latest attempt failed: `timeout`, `connection_failed`, `address_refused`, `redirect`, `http_status`, `tls`, `endpoint_inactive`; empty otherwise.'),
    latency_ms: at.integer('Milliseconds from the start of the latest attempt to its response head; null without a response.', { nullable: true }),
    event_time: at.dateTime('When the event happened.', { nullable: true }),
    date_created: at.dateTime('When the delivery was queued, or redelivered.', { nullable: true }),
    last_attempt_at: at.dateTime(undefined, { nullable: true }),
    next_attempt_at: at.dateTime('When the next attempt is due; only while pending.', { nullable: true }),
  },
  relationships: { endpoint: { type: WEBHOOK_ENDPOINT_TYPE, many: false } },
});

const DELIVERY_FIELDS = protoResourceMapper(WebhookDeliverySchema, WEBHOOK_DELIVERY_SCHEMA);

/** Maps a webhooks.v1 WebhookDelivery to its JSON:API resource; there is no GET of one delivery, so no `links.self`. */
export function toWebhookDeliveryResource(delivery: WebhookDelivery): ResourceObject {
  return resourceObject(WEBHOOK_DELIVERY_TYPE, delivery.id, DELIVERY_FIELDS.attributes(delivery), { relationships: DELIVERY_FIELDS.relationships(delivery) });
}

/** The deliveries of a log page. */
export function webhookDeliveriesOf({ deliveries }: { readonly deliveries: readonly WebhookDelivery[] }): ResourceObject[] {
  return deliveries.map(toWebhookDeliveryResource);
}

/** The delivery of a Redeliver answer. */
export function webhookDeliveryOf({ delivery }: { readonly delivery?: WebhookDelivery }): ResourceObject | null {
  return delivery === undefined ? null : toWebhookDeliveryResource(delivery);
}

/** GET /apps/:app_id/webhooks/:id/deliveries: newest first, `filter[status]`, cursor pages (the most is the rule of its page_size). */
export const WEBHOOK_DELIVERY_LIST = defineListSpec({
  resource: WEBHOOK_DELIVERY_SCHEMA,
  filters: { status: filters.enumeration(WEBHOOK_DELIVERY_STATUSES) },
  pagination: cursorPagination(ListDeliveriesRequestSchema.field.pageSize),
});

/** The proto status of a `filter[status]` value (unset: every status). */
export function deliveryStatusOf(status: (typeof WEBHOOK_DELIVERY_STATUSES)[number] | undefined): number {
  return STATUS.toProto(status);
}

/** The answer of a redelivery: `fields[webhook_delivery]`. */
export const WEBHOOK_DELIVERY_DOCUMENT = defineDocumentSpec({ resource: WEBHOOK_DELIVERY_SCHEMA });

/** The body of a redelivery: the delivery to send again, named by its `event_id` (the service checks it is a UUID of the endpoint's log). */
export const WEBHOOK_REDELIVERY_WRITE = defineWriteSpec({ resource: WEBHOOK_DELIVERY_SCHEMA, attributes: { event_id: writeValues.string() }, required: ['event_id'] });

import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { DeliveryStatus as ProtoDeliveryStatus, WebhookDeliverySchema, WebhookEndpointSchema, type WebhookDelivery, type WebhookEndpoint } from '@inkwell/proto/webhooks';
import type { Delivery, DeliveryStatus, Endpoint } from '../domain/endpoint.js';
import { isEventType, type EventType } from '../domain/event-types.js';

const STATUS_TO_PROTO: Readonly<Record<DeliveryStatus, ProtoDeliveryStatus>> = {
  pending: ProtoDeliveryStatus.PENDING,
  succeeded: ProtoDeliveryStatus.SUCCEEDED,
  failed: ProtoDeliveryStatus.FAILED,
};

/** Domain endpoint → proto WebhookEndpoint (never with a secret). */
export function toProtoEndpoint(endpoint: Endpoint): WebhookEndpoint {
  return create(WebhookEndpointSchema, {
    id: endpoint.id,
    appId: endpoint.appId,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes,
    active: endpoint.active,
    ...(endpoint.disabledAt ? { disabledAt: timestampFromDate(endpoint.disabledAt) } : {}),
    ...(endpoint.previousSecretExpiresAt ? { previousSecretExpiresAt: timestampFromDate(endpoint.previousSecretExpiresAt) } : {}),
    dateCreated: timestampFromDate(endpoint.dateCreated),
    dateModified: timestampFromDate(endpoint.dateModified),
  });
}

/** Domain delivery → proto WebhookDelivery. */
export function toProtoDelivery(delivery: Delivery): WebhookDelivery {
  return create(WebhookDeliverySchema, {
    id: delivery.id,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: STATUS_TO_PROTO[delivery.status],
    attempts: delivery.attempts,
    ...(delivery.lastResponseCode === undefined ? {} : { lastResponseCode: delivery.lastResponseCode }),
    lastError: delivery.lastError,
    ...(delivery.latencyMs === undefined ? {} : { latencyMs: delivery.latencyMs }),
    eventTime: timestampFromDate(delivery.eventTime),
    dateCreated: timestampFromDate(delivery.dateCreated),
    ...(delivery.lastAttemptAt ? { lastAttemptAt: timestampFromDate(delivery.lastAttemptAt) } : {}),
    ...(delivery.nextAttemptAt ? { nextAttemptAt: timestampFromDate(delivery.nextAttemptAt) } : {}),
  });
}

/** A proto status filter → the domain's; UNSPECIFIED is no filter. */
export function statusFilterOf(status: ProtoDeliveryStatus): DeliveryStatus | undefined {
  return (Object.entries(STATUS_TO_PROTO) as Array<[DeliveryStatus, ProtoDeliveryStatus]>).find(([, value]) => value === status)?.[0];
}

/** Event type names of a request (the proto rule has checked them). */
export function eventTypesOf(names: readonly string[]): EventType[] {
  return names.filter(isEventType);
}

import type { EventType } from './event-types.js';

/** Endpoints per app (docs/api/webhooks.md, "Endpoints"). */
export const MAX_ENDPOINTS_PER_APP = 10;

/** The grace period of a rotated secret when the request names none: 24 hours. */
export const DEFAULT_SECRET_GRACE_SECONDS = 86_400;

/** A webhook endpoint of an app, without its secrets. */
export interface Endpoint {
  id: string;
  appId: string;
  url: string;
  eventTypes: EventType[];
  active: boolean;
  disabledAt?: Date;
  previousSecretExpiresAt?: Date;
  dateCreated: Date;
  dateModified: Date;
}

/** Where a delivery stands (docs/api/webhooks.md, "Retries"). */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One row of an endpoint's delivery log. */
export interface Delivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  lastResponseCode?: number;
  lastError: string;
  latencyMs?: number;
  eventTime: Date;
  dateCreated: Date;
  lastAttemptAt?: Date;
  nextAttemptAt?: Date;
}

/** Who is asking, as far as the webhooks rules care (structurally a gRPC CallerContext). */
export interface Caller {
  userId?: string | undefined;
  appId?: string | undefined;
}

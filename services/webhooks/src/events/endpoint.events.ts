import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { EventPayloadInit } from '@inkwell/events';

/** The WebhookEndpointDisabled event (topic webhooks.endpoint.v1, key: endpoint id; docs/api/webhooks.md, "Retries"). */
export function endpointDisabled(endpoint: { endpointId: string; appId: string; ownerUserId: string; url: string; disabledAt: Date }): EventPayloadInit {
  return {
    case: 'webhookEndpointDisabled',
    value: { endpointId: endpoint.endpointId, appId: endpoint.appId, ownerUserId: endpoint.ownerUserId, url: endpoint.url, disabledAt: timestampFromDate(endpoint.disabledAt) },
  };
}

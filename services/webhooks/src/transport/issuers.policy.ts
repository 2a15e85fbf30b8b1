import type { IssuerTable } from '@inkwell/grpc';
import type { WebhookService } from '@inkwell/proto/webhooks';

/** Only the gateway, which authenticated the API caller (or the developer page's session) itself. */
const GATEWAY = ['gateway'] as const;

/**
 * Which issuer may call each RPC of the webhooks service (docs/api/foundation.md, "Internal
 * calls"): every one, the gateway only. A verified call from another issuer is PERMISSION_DENIED.
 */
export const WEBHOOKS_ISSUERS: IssuerTable<typeof WebhookService> = {
  createEndpoint: GATEWAY,
  getEndpoint: GATEWAY,
  listEndpoints: GATEWAY,
  updateEndpoint: GATEWAY,
  deleteEndpoint: GATEWAY,
  rotateSecret: GATEWAY,
  listDeliveries: GATEWAY,
  redeliver: GATEWAY,
};

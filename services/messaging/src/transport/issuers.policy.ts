import type { IssuerTable } from '@inkwell/grpc';
import type { MessagingService } from '@inkwell/proto/messaging';

/** Only the gateway, which authenticated the API caller itself: no other process calls messaging. */
const GATEWAY = ['gateway'] as const;

/**
 * Which issuer may call each RPC of the messaging service (docs/api/foundation.md, "Internal
 * calls"): every one, the gateway only. A verified call from another issuer is PERMISSION_DENIED.
 */
export const MESSAGING_ISSUERS: IssuerTable<typeof MessagingService> = {
  getPrivateMessage: GATEWAY,
  listPrivateMessages: GATEWAY,
  sendPrivateMessage: GATEWAY,
  updatePrivateMessage: GATEWAY,
};

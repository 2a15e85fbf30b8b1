import type { IssuerTable } from '@inkwell/grpc';
import type { MessagingService, NotificationService } from '@inkwell/proto/messaging';

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

/**
 * Which issuer may call each RPC of the notifications inbox: the gateway only, for its API routes
 * and for the private Atom feed (ListNotificationsByFeedToken, whose token is the credential).
 */
export const NOTIFICATION_ISSUERS: IssuerTable<typeof NotificationService> = {
  listNotifications: GATEWAY,
  getNotification: GATEWAY,
  updateNotification: GATEWAY,
  markNotificationsRead: GATEWAY,
  createFeedToken: GATEWAY,
  revokeFeedToken: GATEWAY,
  listNotificationsByFeedToken: GATEWAY,
};

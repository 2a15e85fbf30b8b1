import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@inkwell/grpc';
import type { NotificationService as NotificationRpcs } from '@inkwell/proto/messaging';
import type { NotificationService } from '../services/notification.service.js';
import { toInboxRequest, toProtoNotification, toReadMark } from './notification.mappers.js';

/** gRPC handlers of NotificationService: decode → one service call → encode. */
export function notificationHandlers(notifications: NotificationService): ServiceImpl<typeof NotificationRpcs> {
  return {
    async listNotifications(request, ctx) {
      const listing = await notifications.list(toInboxRequest(request), ctx.caller);
      return { notifications: listing.notifications.map(toProtoNotification), nextAfter: listing.nextAfter, unread: listing.unread };
    },
    async getNotification(request, ctx) {
      return { notification: toProtoNotification(await notifications.get(request.id, ctx.caller)) };
    },
    async updateNotification(request, ctx) {
      // read is required by the proto rules, checked before any handler runs.
      const updated = await notifications.update(request.id, request.read ?? false, ctx.caller);
      return { notification: toProtoNotification(updated.notification), unread: updated.unread };
    },
    async markNotificationsRead(request, ctx) {
      return notifications.markRead(request.userId, toReadMark(request), ctx.caller);
    },
    async createFeedToken(request, ctx) {
      const issued = await notifications.createFeedToken(request.userId, ctx.caller);
      return { token: issued.token, dateCreated: timestampFromDate(issued.dateCreated) };
    },
    async revokeFeedToken(request, ctx) {
      return { revoked: await notifications.revokeFeedToken(request.userId, ctx.caller) };
    },
    async listNotificationsByFeedToken(request, ctx) {
      const feed = await notifications.feed(request.token, ctx.caller);
      return { userId: feed.userId, notifications: feed.notifications.map(toProtoNotification) };
    },
  };
}

import type { GrpcClient } from '@inkwell/grpc';
import { NotificationService } from '@inkwell/proto/messaging';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { parseCreateBody, type DocumentResponder } from '../jsonapi/index.js';
import {
  MARK_READ_META,
  markReadMeta,
  markReadRequest,
  NOTIFICATION_DOCUMENT,
  NOTIFICATION_FEED_DOCUMENT,
  NOTIFICATION_FEED_WRITE,
  NOTIFICATION_LIST,
  NOTIFICATION_MARK,
  NOTIFICATION_READ_MARKER_WRITE,
  notificationFeedOf,
  notificationListMeta,
  notificationListRequest,
  notificationOf,
  notificationsOf,
} from '../resources/notification.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { routeAccess, rpcOf } from '../routing/route-rpc.js';
import { defineRoute, type RouteDefinition } from '../routing/route.types.js';

/** What the notification routes need: the notifications client, the link builder and the document responder. */
export interface NotificationsRoutesDeps {
  readonly notifications: GrpcClient<typeof NotificationService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/**
 * The notification endpoints (paths relative to /api/v1; docs/api/updates.md, "Notifications").
 * Every one acts as the signed-in user with read_notifications (the RPCs' access option) and sees
 * only the caller's own inbox: `/users/me/...` or the caller's own id; another user's id is
 * `404 not_found`, as if there were nothing (the messaging service's rule).
 */
export function notificationsRoutes({ notifications, links, documents }: NotificationsRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  const markRead = rpcOf(notifications, NotificationService.method.markNotificationsRead);
  return [
    route.list({
      path: '/users/:id/notifications',
      doc: { summary: 'Your notifications, newest first, with your unread count.' },
      params: { id: 'user' },
      query: NOTIFICATION_LIST,
      toRequest: ({ params, query }) => notificationListRequest(params.id, query),
      rpc: rpcOf(notifications, NotificationService.method.listNotifications),
      toResources: notificationsOf,
      meta: notificationListMeta,
    }),
    route.read({
      path: '/notifications/:id',
      doc: { summary: 'One of your notifications.' },
      query: NOTIFICATION_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(notifications, NotificationService.method.getNotification),
      toResource: notificationOf,
    }),
    route.update({
      path: '/notifications/:id',
      doc: { summary: 'Mark one of your notifications read or unread.' },
      query: NOTIFICATION_DOCUMENT,
      body: NOTIFICATION_MARK,
      toRequest: ({ params, body }) => ({ id: params.id, read: body.attributes.read }),
      rpc: rpcOf(notifications, NotificationService.method.updateNotification),
      toResource: notificationOf,
    }),
    // An action on many notifications that answers counts, not a resource: no route kind fits.
    defineRoute({
      method: 'POST',
      path: '/users/:id/notifications/read',
      doc: { summary: 'Mark read every notification up to one (`up_to`) or up to a moment (`until`).', body: NOTIFICATION_READ_MARKER_WRITE, status: 200, meta: MARK_READ_META },
      params: { id: 'user' },
      ...routeAccess(markRead),
      async handler(request) {
        const body = parseCreateBody(NOTIFICATION_READ_MARKER_WRITE, request.body);
        const options = request.signal === undefined ? { caller: request.caller } : { caller: request.caller, signal: request.signal };
        const response = await markRead(markReadRequest(request.params.id, body), options);
        return { status: 200, document: { meta: markReadMeta(response), links: { self: request.selfLink } } };
      },
    }),
    route.create({
      path: '/users/:id/notifications/feed-token',
      doc: { summary: 'Create your private notification feed (its URL is shown once; an earlier one stops working).' },
      params: { id: 'user' },
      query: NOTIFICATION_FEED_DOCUMENT,
      body: NOTIFICATION_FEED_WRITE,
      toRequest: ({ params }) => ({ userId: params.id }),
      rpc: rpcOf(notifications, NotificationService.method.createFeedToken),
      toResource: notificationFeedOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/users/:id/notifications/feed-token',
      doc: { summary: 'Revoke your private notification feed: its URL answers 404 from now on.' },
      params: { id: 'user' },
      toRequest: ({ params }) => ({ userId: params.id }),
      rpc: rpcOf(notifications, NotificationService.method.revokeFeedToken),
    }),
  ];
}

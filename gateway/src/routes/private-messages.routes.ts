import type { GrpcClient } from '@inkwell/grpc';
import { MessagingService } from '@inkwell/proto/messaging';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { parseListQuery, type DocumentResponder } from '../jsonapi/index.js';
import {
  MARK_BODY,
  PRIVATE_MESSAGE_DOCUMENT,
  PRIVATE_MESSAGE_LIST,
  privateMessageListRequest,
  privateMessageOf,
  privateMessageSendRequest,
  privateMessagesOf,
  SEND_BODY,
} from '../resources/private-message.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { routeAccess, rpcOf } from '../routing/route-rpc.js';
import { defineRoute, type RouteDefinition } from '../routing/route.types.js';

/** What the private-message routes need: the messaging client, the link builder and the document responder. */
export interface PrivateMessagesRoutesDeps {
  readonly messaging: GrpcClient<typeof MessagingService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/**
 * The private-message endpoints (paths relative to /api/v1). All of them act as the signed-in
 * user; listing, reading and marking need read_pms, sending needs write_pms (docs/api/messages.md, "Endpoints").
 * `/users/me/...` and `/users/<own id>/...` are the caller's whole mailbox, `/users/<other>/...`
 * the conversation with that user (docs/api/messages.md, "Who sees what").
 */
export function privateMessagesRoutes({ messaging, links, documents }: PrivateMessagesRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  const listPrivateMessages = rpcOf(messaging, MessagingService.method.listPrivateMessages);
  return [
    // Numbered pages with a total (docs/api/messages.md, "Listing: sort and pages"): the one such list, so it keeps its own handler.
    defineRoute({
      method: 'GET',
      path: '/users/:id/private-messages',
      doc: { summary: 'Your mailbox (`me`) or your conversation with a user, newest first, in numbered pages.', query: PRIVATE_MESSAGE_LIST, errors: ['invalid_filter_combination'] },
      params: { id: 'user' },
      ...routeAccess(listPrivateMessages),
      async handler(request) {
        const query = parseListQuery(PRIVATE_MESSAGE_LIST, request.query);
        const response = await listPrivateMessages(privateMessageListRequest(request.params.id, query), { caller: request.caller });
        return documents.numberedPage(request, query, privateMessagesOf(response, links), response.total);
      },
    }),
    route.create({
      path: '/users/:id/private-messages',
      doc: { summary: 'Send a private message to a user (`me`: to yourself).' },
      params: { id: 'user' },
      query: PRIVATE_MESSAGE_DOCUMENT,
      body: SEND_BODY,
      toRequest: ({ params, body }) => privateMessageSendRequest(params.id, body),
      rpc: rpcOf(messaging, MessagingService.method.sendPrivateMessage),
      toResource: privateMessageOf,
      // Location names the new message; the document's links.self has always been the request's URL.
      self: 'request',
    }),
    route.read({
      path: '/private-messages/:id',
      doc: { summary: 'One private message you sent or received.' },
      query: PRIVATE_MESSAGE_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(messaging, MessagingService.method.getPrivateMessage),
      toResource: privateMessageOf,
    }),
    route.update({
      path: '/private-messages/:id',
      doc: { summary: 'Mark a message you received as read or unread.' },
      query: PRIVATE_MESSAGE_DOCUMENT,
      body: MARK_BODY,
      toRequest: ({ params, body }) => ({ id: params.id, read: body.attributes.read }),
      rpc: rpcOf(messaging, MessagingService.method.updatePrivateMessage),
      toResource: privateMessageOf,
    }),
  ];
}

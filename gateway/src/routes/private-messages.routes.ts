import type { GrpcClient } from '@inkwell/grpc';
import type { MessagingService } from '@inkwell/proto/messaging';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineDocumentSpec, defineListSpec, defineWriteSpec, filters, parseListQuery, writeValues, type DocumentResponder } from '../jsonapi/index.js';
import {
  PRIVATE_MESSAGE_SCHEMA,
  PRIVATE_MESSAGE_SORT_FIELDS,
  privateMessageListRequest,
  privateMessageOf,
  privateMessageSendRequest,
  privateMessagesOf,
} from '../resources/private-message.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { defineRoute, type RouteDefinition } from '../routing/route.types.js';

/** What the private-message routes need: the messaging client, the link builder and the document responder. */
export interface PrivateMessagesRoutesDeps {
  readonly messaging: GrpcClient<typeof MessagingService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/** Longest `filter[subject]` (no subject is longer) and `filter[content]`, in characters. */
const MAX_SUBJECT_FILTER_CHARS = 200;
const MAX_CONTENT_FILTER_CHARS = 1000;

/** `include` of every private-message endpoint: the two users, fetched in one batch each. */
const PRIVATE_MESSAGE_INCLUDES = ['sender', 'recipient'];

/**
 * GET /users/:id/private-messages (docs/api/messages.md, "Listing: filters"; docs/api/messages.md, "Listing: sort and pages"): the seven
 * filters, one sort field of `read`/`date_sent` (default `-date_sent`), pages by number (default
 * 100, max 1000). The defaults of `sent` (false) and `received` (true), and the refusal of both
 * false, are the messaging service's rules.
 */
export const PRIVATE_MESSAGE_LIST = defineListSpec({
  resource: PRIVATE_MESSAGE_SCHEMA,
  types: [USER_SCHEMA],
  includes: PRIVATE_MESSAGE_INCLUDES,
  filters: {
    sender: filters.id(),
    subject: filters.string(MAX_SUBJECT_FILTER_CHARS),
    content: filters.string(MAX_CONTENT_FILTER_CHARS),
    date_sent: filters.dateRange(),
    read: filters.boolean(),
    sent: filters.boolean(),
    received: filters.boolean(),
  },
  sort: { fields: PRIVATE_MESSAGE_SORT_FIELDS, default: '-date_sent' },
  pagination: { kind: 'page', defaultSize: 100, maxSize: 1000 },
});

/** GET/PATCH /private-messages/:id and the response of POST: `include` and `fields`. */
const PRIVATE_MESSAGE_DOCUMENT = defineDocumentSpec({ resource: PRIVATE_MESSAGE_SCHEMA, types: [USER_SCHEMA], includes: PRIVATE_MESSAGE_INCLUDES });

/** POST body: subject and content, both required (docs/api/messages.md, "The private_message resource"); everything else is read-only. */
export const SEND_BODY = defineWriteSpec({
  resource: PRIVATE_MESSAGE_SCHEMA,
  attributes: { subject: writeValues.string(), content: writeValues.string() },
  required: ['subject', 'content'],
});

/** PATCH body: only `read` (the recipient marks the message read or unread). */
const MARK_BODY = defineWriteSpec({
  resource: PRIVATE_MESSAGE_SCHEMA,
  attributes: { read: writeValues.boolean() },
});

/**
 * The private-message endpoints (paths relative to /api/v1). All of them act as the signed-in
 * user; listing, reading and marking need read_pms, sending needs write_pms (docs/api/messages.md, "Endpoints").
 * `/users/me/...` and `/users/<own id>/...` are the caller's whole mailbox, `/users/<other>/...`
 * the conversation with that user (docs/api/messages.md, "Who sees what").
 */
export function privateMessagesRoutes({ messaging, links, documents }: PrivateMessagesRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents, links });
  return [
    // Numbered pages with a total (docs/api/messages.md, "Listing: sort and pages"): the one such list, so it keeps its own handler.
    defineRoute({
      method: 'GET',
      path: '/users/:id/private-messages',
      doc: { summary: 'Your mailbox (`me`) or your conversation with a user, newest first, in numbered pages.', query: PRIVATE_MESSAGE_LIST, errors: ['invalid_filter_combination'] },
      params: { id: 'user' },
      scope: 'read_pms',
      requiresUser: true,
      async handler(request) {
        const query = parseListQuery(PRIVATE_MESSAGE_LIST, request.query);
        const response = await messaging.listPrivateMessages(privateMessageListRequest(request.params.id, query), { caller: request.caller });
        return documents.numberedPage(request, query, privateMessagesOf(response, links), response.total);
      },
    }),
    route.create({
      path: '/users/:id/private-messages',
      doc: { summary: 'Send a private message to a user (`me`: to yourself).' },
      params: { id: 'user' },
      scope: 'write_pms',
      requiresUser: true,
      query: PRIVATE_MESSAGE_DOCUMENT,
      body: SEND_BODY,
      toRequest: ({ params, body }) => privateMessageSendRequest(params.id, body),
      rpc: (request, options) => messaging.sendPrivateMessage(request, options),
      toResource: privateMessageOf,
      // Location names the new message; the document's links.self has always been the request's URL.
      self: 'request',
    }),
    route.read({
      path: '/private-messages/:id',
      doc: { summary: 'One private message you sent or received.' },
      scope: 'read_pms',
      requiresUser: true,
      query: PRIVATE_MESSAGE_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: (request, options) => messaging.getPrivateMessage(request, options),
      toResource: privateMessageOf,
    }),
    route.update({
      path: '/private-messages/:id',
      doc: { summary: 'Mark a message you received as read or unread.' },
      scope: 'read_pms',
      requiresUser: true,
      query: PRIVATE_MESSAGE_DOCUMENT,
      body: MARK_BODY,
      toRequest: ({ params, body }) => ({ id: params.id, read: body.attributes.read }),
      rpc: (request, options) => messaging.updatePrivateMessage(request, options),
      toResource: privateMessageOf,
    }),
  ];
}

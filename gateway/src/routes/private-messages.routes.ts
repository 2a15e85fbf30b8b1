import type { GrpcClient } from '@inkwell/grpc';
import { PrivateMessageSortField, SortDirection, type MessagingService, type PrivateMessage } from '@inkwell/proto/messaging';
import type { ApiLinks } from '../jsonapi/api-links.js';
import {
  defineDocumentSpec,
  defineListSpec,
  defineWriteSpec,
  filters,
  parseCreateBody,
  parseDocumentQuery,
  parseListQuery,
  parseUpdateBody,
  wantsField,
  writeValues,
  type DocumentResponder,
  type SortOrder,
  type SparseFieldsets,
} from '../lists/index.js';
import { PRIVATE_MESSAGE_SCHEMA, toPrivateMessageResource } from '../resources/private-message.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
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
  sort: { fields: ['date_sent', 'read'], default: '-date_sent' },
  pagination: { kind: 'page', defaultSize: 100, maxSize: 1000 },
});

/** GET/PATCH /private-messages/:id and the response of POST: `include` and `fields`. */
const PRIVATE_MESSAGE_DOCUMENT = defineDocumentSpec({ resource: PRIVATE_MESSAGE_SCHEMA, types: [USER_SCHEMA], includes: PRIVATE_MESSAGE_INCLUDES });

/** POST body: subject and content, both required (docs/api/messages.md, "The private_message resource"); everything else is read-only. */
const SEND_BODY = defineWriteSpec({
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
  const toResource = (message: PrivateMessage | undefined) => (message === undefined ? null : toPrivateMessageResource(message, links));

  return [
    defineRoute({
      method: 'GET',
      path: '/users/:id/private-messages',
      doc: { summary: 'Your mailbox (`me`) or your conversation with a user, newest first, in numbered pages.', query: PRIVATE_MESSAGE_LIST, errors: ['invalid_filter_combination'] },
      params: { id: 'user' },
      scope: 'read_pms',
      requiresUser: true,
      async handler(request) {
        const query = parseListQuery(PRIVATE_MESSAGE_LIST, request.query);
        const filter = query.filters;
        const { privateMessages, total } = await messaging.listPrivateMessages(
          {
            userId: request.params.id,
            filter: {
              senderId: filter.sender,
              subjectContains: filter.subject,
              contentContains: filter.content,
              dateSentMin: filter.date_sent?.min,
              dateSentMax: filter.date_sent?.max,
              read: filter.read,
              sent: filter.sent,
              received: filter.received,
            },
            sort: toProtoSort(query.sort),
            pageNumber: query.page.number,
            pageSize: query.page.size,
            omitContent: !wantsText(query.fields),
          },
          { caller: request.caller },
        );
        return documents.numberedPage(request, query, privateMessages.map((message) => toPrivateMessageResource(message, links)), total);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/users/:id/private-messages',
      doc: { summary: 'Send a private message to a user (`me`: to yourself).', query: PRIVATE_MESSAGE_DOCUMENT, body: SEND_BODY },
      params: { id: 'user' },
      scope: 'write_pms',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(PRIVATE_MESSAGE_DOCUMENT, request.query);
        const body = parseCreateBody(SEND_BODY, request.body);
        const { privateMessage } = await messaging.sendPrivateMessage(
          { recipientId: request.params.id, subject: body.attributes.subject ?? '', content: body.attributes.content ?? '' },
          { caller: request.caller },
        );
        const resource = toResource(privateMessage);
        const headers = resource?.links === undefined ? undefined : { Location: resource.links.self };
        return documents.resource(request, query, resource, { status: 201, ...(headers === undefined ? {} : { headers }) });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/private-messages/:id',
      doc: { summary: 'One private message you sent or received.', query: PRIVATE_MESSAGE_DOCUMENT },
      scope: 'read_pms',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(PRIVATE_MESSAGE_DOCUMENT, request.query);
        const { privateMessage } = await messaging.getPrivateMessage({ id: request.params.id }, { caller: request.caller });
        return documents.resource(request, query, toResource(privateMessage));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/private-messages/:id',
      doc: { summary: 'Mark a message you received as read or unread.', query: PRIVATE_MESSAGE_DOCUMENT, body: MARK_BODY },
      scope: 'read_pms',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(PRIVATE_MESSAGE_DOCUMENT, request.query);
        const body = parseUpdateBody(MARK_BODY, request.body, request.params.id);
        const { privateMessage } = await messaging.updatePrivateMessage({ id: request.params.id, read: body.attributes.read }, { caller: request.caller });
        return documents.resource(request, query, toResource(privateMessage));
      },
    }),
  ];
}

/** The list's sort (already checked to be `read` or `date_sent`) for the messaging service; ties by id are the service's. */
function toProtoSort(sort: SortOrder | undefined) {
  if (sort === undefined) return undefined;
  const field = sort.field === 'read' ? PrivateMessageSortField.READ : PrivateMessageSortField.DATE_SENT;
  return { field, direction: sort.descending ? SortDirection.DESCENDING : SortDirection.ASCENDING };
}

/** Whether the response will carry content or content_html: otherwise the service need not send the text. */
function wantsText(fields: SparseFieldsets): boolean {
  return wantsField(fields, PRIVATE_MESSAGE_SCHEMA, 'content') || wantsField(fields, PRIVATE_MESSAGE_SCHEMA, 'content_html');
}

import type { MessageInitShape } from '@bufbuild/protobuf';
import { ListPrivateMessagesRequestSchema, PrivateMessageFilterSchema, PrivateMessageSchema, PrivateMessageSortFieldSchema, SortDirection, type PrivateMessage, type SendPrivateMessageRequestSchema } from '@inkwell/proto/messaging';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import {
  attributeTypes as at,
  defineDocumentSpec,
  defineListSpec,
  defineResourceSchema,
  defineWriteSpec,
  filters,
  maxChars,
  numberedPagination,
  wantsField,
  writeValues,
  type SparseFieldsets,
} from '../jsonapi/index.js';
import type { BodyOf, ListQueryOf } from '../routing/route-kinds.js';
import { protoEnumNames } from './proto-enum.js';
import { protoResourceMapper } from './proto-resource.js';
import { USER_SCHEMA } from './user.resource.js';

/** The JSON:API type of private messages. */
export const PRIVATE_MESSAGE_TYPE = 'private_message';

/**
 * The private_message type (docs/api/messages.md, "The private_message resource"): subject and content are written on create, `read` by
 * the recipient; content_html and date_sent are the server's. No attribute is opt-in: a
 * message's content is what a mailbox is for (fields[private_message] can leave it out).
 */
export const PRIVATE_MESSAGE_SCHEMA = defineResourceSchema({
  type: PRIVATE_MESSAGE_TYPE,
  description: 'A private message between two users.',
  attributes: {
    subject: at.string(),
    content: at.string('Markdown.'),
    content_html: at.html('content'),
    date_sent: at.dateTime(undefined, { nullable: true }),
    read: at.boolean('Whether the recipient has read it.'),
  },
  relationships: { sender: { type: 'user', many: false }, recipient: { type: 'user', many: false } },
});

const MESSAGE_FIELDS = protoResourceMapper(PrivateMessageSchema, PRIVATE_MESSAGE_SCHEMA);

/**
 * Maps a messaging.v1 PrivateMessage to its JSON:API resource: `date_sent` in ISO 8601 UTC,
 * `sender` and `recipient` as user linkage, `links.self` = PUBLIC_BASE_URL/api/v1/private-messages/<id>.
 * A message fetched without its text (omit_content) maps with empty content; narrow it with
 * the request's fieldsets, which are what left the text out.
 */
export function toPrivateMessageResource(message: PrivateMessage, links: ApiLinks): ResourceObject {
  return resourceObject(PRIVATE_MESSAGE_TYPE, message.id, MESSAGE_FIELDS.attributes(message), { relationships: MESSAGE_FIELDS.relationships(message), self: links.to(`/private-messages/${message.id}`) });
}

const SORT_FIELD = protoEnumNames(PrivateMessageSortFieldSchema);

/** The sort fields of mailbox lists: date_sent, read. */
export const PRIVATE_MESSAGE_SORT_FIELDS = SORT_FIELD.names;


/**
 * `page[size]` of a mailbox left out (docs/api/messages.md, "Listing: sort and pages"; the
 * messaging service's `page_size` 0): the proto states it only in a comment, as buf.validate
 * has no default values.
 */
const MAILBOX_DEFAULT_PAGE_SIZE = 100;

/** `include` of every private-message endpoint: the two users, fetched in one batch each. */
const PRIVATE_MESSAGE_INCLUDES = ['sender', 'recipient'];

/**
 * GET /users/:id/private-messages (docs/api/messages.md, "Listing: filters"; docs/api/messages.md, "Listing: sort and pages"): the seven
 * filters, one sort field of `read`/`date_sent` (default `-date_sent`), pages by number (default
 * 100, the most the rule of its page_size). The defaults of `sent` (false) and `received` (true), and the refusal of both
 * false, are the messaging service's rules.
 */
export const PRIVATE_MESSAGE_LIST = defineListSpec({
  resource: PRIVATE_MESSAGE_SCHEMA,
  types: [USER_SCHEMA],
  includes: PRIVATE_MESSAGE_INCLUDES,
  filters: {
    sender: filters.id(),
    subject: filters.string(maxChars(PrivateMessageFilterSchema.field.subjectContains)),
    content: filters.string(maxChars(PrivateMessageFilterSchema.field.contentContains)),
    date_sent: filters.dateRange(),
    read: filters.boolean(),
    sent: filters.boolean(),
    received: filters.boolean(),
  },
  sort: { fields: PRIVATE_MESSAGE_SORT_FIELDS, default: '-date_sent' },
  pagination: numberedPagination(ListPrivateMessagesRequestSchema.field.pageSize, MAILBOX_DEFAULT_PAGE_SIZE),
});

/** GET/PATCH /private-messages/:id and the response of POST: `include` and `fields`. */
export const PRIVATE_MESSAGE_DOCUMENT = defineDocumentSpec({ resource: PRIVATE_MESSAGE_SCHEMA, types: [USER_SCHEMA], includes: PRIVATE_MESSAGE_INCLUDES });

/** POST body: subject and content, both required (docs/api/messages.md, "The private_message resource"); everything else is read-only. */
export const SEND_BODY = defineWriteSpec({
  resource: PRIVATE_MESSAGE_SCHEMA,
  attributes: { subject: writeValues.string(), content: writeValues.string() },
  required: ['subject', 'content'],
});

/** PATCH body: only `read` (the recipient marks the message read or unread). */
export const MARK_BODY = defineWriteSpec({
  resource: PRIVATE_MESSAGE_SCHEMA,
  attributes: { read: writeValues.boolean() },
});

/** The message of a single-message response, or null (the service answers none for a message the caller may not see). */
export function privateMessageOf({ privateMessage }: { readonly privateMessage?: PrivateMessage }, links: ApiLinks): ResourceObject | null {
  return privateMessage === undefined ? null : toPrivateMessageResource(privateMessage, links);
}

/** The messages of a list response. */
export function privateMessagesOf({ privateMessages }: { readonly privateMessages: readonly PrivateMessage[] }, links: ApiLinks): ResourceObject[] {
  return privateMessages.map((message) => toPrivateMessageResource(message, links));
}

/**
 * GET /users/:id/private-messages for the messaging service: the filters, the sort (ties by id
 * are the service's), the page by number, and whether the text is wanted at all.
 */
export function privateMessageListRequest(userId: string, query: ListQueryOf<typeof PRIVATE_MESSAGE_LIST>): MessageInitShape<typeof ListPrivateMessagesRequestSchema> {
  const filter = query.filters;
  const sort = query.sort;
  return {
    userId,
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
    sort: sort === undefined ? undefined : { field: SORT_FIELD.toProto(sort.field), direction: sort.descending ? SortDirection.DESCENDING : SortDirection.ASCENDING },
    pageNumber: query.page.number,
    pageSize: query.page.size,
    omitContent: !wantsText(query.fields),
  };
}

/** POST /users/:id/private-messages to `recipientId`. */
export function privateMessageSendRequest(recipientId: string, { attributes }: BodyOf<typeof SEND_BODY>): MessageInitShape<typeof SendPrivateMessageRequestSchema> {
  return { recipientId, subject: attributes.subject ?? '', content: attributes.content ?? '' };
}

/** Whether the response will carry content or content_html: otherwise the service need not send the text. */
function wantsText(fields: SparseFieldsets): boolean {
  return wantsField(fields, PRIVATE_MESSAGE_SCHEMA, 'content') || wantsField(fields, PRIVATE_MESSAGE_SCHEMA, 'content_html');
}

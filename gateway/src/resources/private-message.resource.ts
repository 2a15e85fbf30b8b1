import type { PrivateMessage } from '@inkwell/proto/messaging';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema } from '../lists/index.js';
import { timestampToApiDate } from './user.resource.js';

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

/**
 * Maps a messaging.v1 PrivateMessage to its JSON:API resource: `date_sent` in ISO 8601 UTC,
 * `sender` and `recipient` as user linkage, `links.self` = PUBLIC_BASE_URL/api/v1/private-messages/<id>.
 * A message fetched without its text (omit_content) maps with empty content; narrow it with
 * the request's fieldsets, which are what left the text out.
 */
export function toPrivateMessageResource(message: PrivateMessage, links: ApiLinks): ResourceObject {
  return resourceObject(
    PRIVATE_MESSAGE_TYPE,
    message.id,
    {
      subject: message.subject,
      content: message.content,
      content_html: message.contentHtml,
      date_sent: timestampToApiDate(message.dateSent),
      read: message.read,
    },
    {
      relationships: {
        sender: { data: { type: 'user', id: message.senderId } },
        recipient: { data: { type: 'user', id: message.recipientId } },
      },
      self: links.to(`/private-messages/${message.id}`),
    },
  );
}

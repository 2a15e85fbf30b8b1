import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { EventPayloadInit } from '@inkwell/events';
import { MessageReadChangedSchema, MessageSentSchema } from '@inkwell/proto/messaging';
import type { PrivateMessage } from '../domain/private-message.js';

/** The `MessageSent` outbox payload of a new message (without subject and content: they are private). */
export function messageSent(message: PrivateMessage): EventPayloadInit {
  return {
    case: 'messageSent',
    value: create(MessageSentSchema, {
      messageId: message.id,
      senderId: message.senderId,
      recipientId: message.recipientId,
      dateSent: timestampFromDate(message.dateSent),
    }),
  };
}

/** The `MessageReadChanged` outbox payload: the read state after the recipient changed it. */
export function messageReadChanged(message: PrivateMessage): EventPayloadInit {
  return {
    case: 'messageReadChanged',
    value: create(MessageReadChangedSchema, {
      messageId: message.id,
      senderId: message.senderId,
      recipientId: message.recipientId,
      read: message.read,
    }),
  };
}

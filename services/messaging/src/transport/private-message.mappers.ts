import { create } from '@bufbuild/protobuf';
import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import {
  PrivateMessageSchema,
  PrivateMessageSortField,
  SortDirection,
  type ListPrivateMessagesRequest,
  type PrivateMessage as ProtoPrivateMessage,
  type PrivateMessageSort,
} from '@inkwell/proto/messaging';
import type { MailboxOrder, MailboxRequest } from '../domain/mailbox-query.js';
import type { PrivateMessage } from '../domain/private-message.js';

/** Domain message → proto PrivateMessage. */
export function toProtoPrivateMessage(message: PrivateMessage): ProtoPrivateMessage {
  return create(PrivateMessageSchema, {
    id: message.id,
    senderId: message.senderId,
    recipientId: message.recipientId,
    subject: message.subject,
    content: message.content,
    contentHtml: message.contentHtml,
    dateSent: timestampFromDate(message.dateSent),
    read: message.read,
  });
}

/** ListPrivateMessagesRequest → the domain's list request; unset filters stay unset. */
export function toMailboxRequest(request: ListPrivateMessagesRequest): MailboxRequest {
  const filter = request.filter;
  const mailbox: MailboxRequest = { userId: request.userId, pageNumber: request.pageNumber, pageSize: request.pageSize, omitContent: request.omitContent };
  const order = toMailboxOrder(request.sort);
  if (order !== undefined) mailbox.order = order;
  if (filter === undefined) return mailbox;
  if (filter.senderId !== undefined) mailbox.senderId = filter.senderId;
  if (filter.subjectContains !== undefined) mailbox.subjectContains = filter.subjectContains;
  if (filter.contentContains !== undefined) mailbox.contentContains = filter.contentContains;
  if (filter.dateSentMin !== undefined) mailbox.dateSentMin = boundDate(filter.dateSentMin, 'min');
  if (filter.dateSentMax !== undefined) mailbox.dateSentMax = boundDate(filter.dateSentMax, 'max');
  if (filter.read !== undefined) mailbox.read = filter.read;
  if (filter.sent !== undefined) mailbox.sent = filter.sent;
  if (filter.received !== undefined) mailbox.received = filter.received;
  return mailbox;
}

/** UNSPECIFIED field: the default order (undefined); with a field, UNSPECIFIED direction is ascending. */
function toMailboxOrder(sort: PrivateMessageSort | undefined): MailboxOrder | undefined {
  if (sort === undefined) return undefined;
  const descending = sort.direction === SortDirection.DESCENDING;
  switch (sort.field) {
    case PrivateMessageSortField.DATE_SENT:
      return { field: 'date_sent', descending };
    case PrivateMessageSortField.READ:
      return { field: 'read', descending };
    default:
      return undefined;
  }
}

/**
 * An inclusive range bound as a Date. Dates are stored in whole milliseconds, so a bound with a
 * sub-millisecond part rounds inwards: a minimum up (`.1234567` → `.124`: a message at `.123`
 * is before it), a maximum down (`23:59:59.999999999` → `.999`, never the next midnight, which
 * protobuf-es's rounding `timestampDate` would give).
 */
export function boundDate(timestamp: Pick<Timestamp, 'seconds' | 'nanos'>, side: 'min' | 'max'): Date {
  const wholeMs = Number(timestamp.seconds) * 1000 + Math.floor(timestamp.nanos / 1_000_000);
  const partial = timestamp.nanos % 1_000_000 !== 0;
  return new Date(side === 'min' && partial ? wholeMs + 1 : wholeMs);
}

/** The sort fields of private-message lists (docs/api/messages.md, "Listing: sort and pages": `read` and `date_sent`). */
export type MailboxSortField = 'date_sent' | 'read';

/** One sort field and its direction; ties are broken by id in the same direction (docs/api/messages.md, "Listing: sort and pages"). */
export interface MailboxOrder {
  field: MailboxSortField;
  descending: boolean;
}

/** Page size when none is asked for (docs/api/messages.md, "Listing: sort and pages"). */
export const DEFAULT_PAGE_SIZE = 100;

/** The default order: newest first (docs/api/messages.md, "Listing: sort and pages"). */
export const DEFAULT_ORDER: MailboxOrder = { field: 'date_sent', descending: true };

/**
 * Most text (content plus content_html, in bytes) one page may carry: a page of many 1 MiB
 * messages would exhaust the gateway and the client. A page over it is answered without text
 * and refused (docs/api/messages.md, "Listing: sort and pages"); a single message is always
 * within budget.
 */
export const PAGE_TEXT_BUDGET_BYTES = 16 * 1024 * 1024;

/**
 * A list request as it arrives, before defaults. Unset fields were not given. Its bounds (page
 * number from 1, size up to 1000, a date range in order, not both `sent` and `received` false)
 * are the rules of ListPrivateMessagesRequest, checked before the service runs.
 */
export interface MailboxRequest {
  /** The user of the path (`/users/:id/private-messages`), `me` already resolved. */
  userId: string;
  senderId?: string;
  subjectContains?: string;
  contentContains?: string;
  dateSentMin?: Date;
  dateSentMax?: Date;
  read?: boolean;
  sent?: boolean;
  received?: boolean;
  /** Undefined: the default order. */
  order?: MailboxOrder;
  /** 0 or undefined: page 1. */
  pageNumber?: number;
  /** 0 or undefined: the default size. */
  pageSize?: number;
  /** Leave content and content_html out of the page. */
  omitContent?: boolean;
}

/**
 * A validated list query: which of the caller's messages, in which order, which slice. Every
 * query is confined to messages the caller sent or received: `sent`/`received` say which of the
 * two, and `otherId` (a conversation) narrows them to the ones exchanged with that user.
 */
export interface MailboxQuery {
  callerId: string;
  /** The other side of a conversation; undefined for the caller's whole mailbox. */
  otherId?: string;
  sent: boolean;
  received: boolean;
  senderId?: string;
  /** Non-empty; matched case-insensitively as a plain substring. */
  subjectContains?: string;
  contentContains?: string;
  dateSentMin?: Date;
  dateSentMax?: Date;
  read?: boolean;
  order: MailboxOrder;
  limit: number;
  offset: number;
  withContent: boolean;
  /** Senders whose messages are left out: the users the caller blocks (docs/api/safety.md, "Blocking"). */
  hiddenSenderIds?: string[];
}

/**
 * Applies the defaults of docs/api/messages.md, "Listing: filters" to a list request of
 * `callerId`:
 * - `sent` defaults to false and `received` to true.
 * - `userId` equal to the caller means the whole mailbox, any other user the conversation
 *   between the two (docs/api/messages.md, "Who sees what").
 * - An empty `subjectContains`/`contentContains` filters nothing (every text contains "").
 * - Page number 0 means 1, size 0 means 100.
 */
export function buildMailboxQuery(callerId: string, request: MailboxRequest): MailboxQuery {
  const sent = request.sent ?? false;
  const received = request.received ?? true;
  const pageNumber = request.pageNumber || 1;
  const pageSize = request.pageSize || DEFAULT_PAGE_SIZE;

  const query: MailboxQuery = {
    callerId,
    sent,
    received,
    order: request.order ?? DEFAULT_ORDER,
    limit: pageSize,
    offset: (pageNumber - 1) * pageSize,
    withContent: !request.omitContent,
  };
  if (request.userId !== callerId) query.otherId = request.userId;
  if (request.senderId !== undefined) query.senderId = request.senderId;
  if (request.subjectContains) query.subjectContains = request.subjectContains;
  if (request.contentContains) query.contentContains = request.contentContains;
  if (request.dateSentMin !== undefined) query.dateSentMin = request.dateSentMin;
  if (request.dateSentMax !== undefined) query.dateSentMax = request.dateSentMax;
  if (request.read !== undefined) query.read = request.read;
  return query;
}

/** The sort fields of private-message lists (docs/api/messages.md, "Listing: sort and pages": `read` and `date_sent`). */
export type MailboxSortField = 'date_sent' | 'read';

/** One sort field and its direction; ties are broken by id in the same direction (docs/api/messages.md, "Listing: sort and pages"). */
export interface MailboxOrder {
  field: MailboxSortField;
  descending: boolean;
}

/** Default and largest page size of private-message lists (docs/api/messages.md, "Listing: sort and pages"). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** The default order: newest first (docs/api/messages.md, "Listing: sort and pages"). */
export const DEFAULT_ORDER: MailboxOrder = { field: 'date_sent', descending: true };

/** A list request as it arrives, before defaults and rules. Unset fields were not given. */
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
}

/** Why a list request was refused: the query parameter at fault and the public error code. */
export interface MailboxProblem {
  parameter: string;
  reason: 'invalid_parameter' | 'invalid_filter_combination';
  detail: string;
}

/**
 * Applies the defaults and rules of docs/api/messages.md, "Listing: filters" to a list request of
 * `callerId`:
 * - `sent` defaults to false and `received` to true; both false is `invalid_filter_combination`.
 * - `userId` equal to the caller means the whole mailbox, any other user the conversation
 *   between the two (docs/api/messages.md, "Who sees what").
 * - An empty `subjectContains`/`contentContains` filters nothing (every text contains "").
 * - `dateSentMin` after `dateSentMax` is refused (`filter[date_sent]`).
 * - Page number from 1 (0 means 1), size 1–1000 (0 means 100).
 */
export function buildMailboxQuery(callerId: string, request: MailboxRequest): { query: MailboxQuery } | { problem: MailboxProblem } {
  const sent = request.sent ?? false;
  const received = request.received ?? true;
  if (!sent && !received) {
    return problem('filter[sent]', 'invalid_filter_combination', 'filter[sent] and filter[received] cannot both be false: nothing would be listed.');
  }
  if (request.dateSentMin !== undefined && request.dateSentMax !== undefined && request.dateSentMin.getTime() > request.dateSentMax.getTime()) {
    return problem('filter[date_sent]', 'invalid_parameter', 'The minimum of filter[date_sent] is after its maximum.');
  }
  const pageNumber = request.pageNumber || 1;
  if (!Number.isSafeInteger(pageNumber) || pageNumber < 1) return problem('page[number]', 'invalid_parameter', 'page[number] must be a whole number from 1.');
  const pageSize = request.pageSize || DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    return problem('page[size]', 'invalid_parameter', `page[size] must be a whole number from 1 to ${MAX_PAGE_SIZE}.`);
  }

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
  return { query };
}

function problem(parameter: string, reason: MailboxProblem['reason'], detail: string): { problem: MailboxProblem } {
  return { problem: { parameter, reason, detail } };
}

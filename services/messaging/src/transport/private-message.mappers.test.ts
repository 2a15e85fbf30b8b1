import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { ListPrivateMessagesRequestSchema, PrivateMessageSortField, SortDirection } from '@inkwell/proto/messaging';
import { boundDate, toMailboxRequest } from './private-message.mappers.js';

describe('boundDate', () => {
  it('keeps whole milliseconds as they are on both sides', () => {
    const stamp = { seconds: 1_772_359_200n, nanos: 123_000_000 };
    expect(boundDate(stamp, 'min').toISOString()).toBe('2026-03-01T10:00:00.123Z');
    expect(boundDate(stamp, 'max').toISOString()).toBe('2026-03-01T10:00:00.123Z');
  });

  it('rounds a partial millisecond inwards: minimum up, maximum down (the last nanosecond of a day stays in that day)', () => {
    expect(boundDate({ seconds: 1_772_359_200n, nanos: 123_456_700 }, 'min').toISOString()).toBe('2026-03-01T10:00:00.124Z');
    expect(boundDate({ seconds: 1_772_409_599n, nanos: 999_999_999 }, 'max').toISOString()).toBe('2026-03-01T23:59:59.999Z');
  });
});

describe('toMailboxRequest', () => {
  it('leaves unset filters unset so the service applies the defaults', () => {
    const request = toMailboxRequest(create(ListPrivateMessagesRequestSchema, { userId: '5' }));
    expect(request).toEqual({ userId: '5', pageNumber: 0, pageSize: 0, omitContent: false });
  });

  it('maps every filter and the sort', () => {
    const request = toMailboxRequest(
      create(ListPrivateMessagesRequestSchema, {
        userId: '5',
        filter: { senderId: '9', subjectContains: 'hi', contentContains: 'there', read: false, sent: true, received: false, dateSentMin: { seconds: 0n, nanos: 1 } },
        sort: { field: PrivateMessageSortField.READ, direction: SortDirection.DESCENDING },
        pageNumber: 2,
        pageSize: 10,
      }),
    );
    expect(request).toMatchObject({ senderId: '9', subjectContains: 'hi', contentContains: 'there', read: false, sent: true, received: false, order: { field: 'read', descending: true }, pageNumber: 2, pageSize: 10 });
    expect(request.dateSentMin?.getTime()).toBe(1);
    expect(request).not.toHaveProperty('dateSentMax');
  });

  it('reads an unspecified sort field as the default order and an unspecified direction as ascending', () => {
    expect(toMailboxRequest(create(ListPrivateMessagesRequestSchema, { userId: '5', sort: { direction: SortDirection.ASCENDING } })).order).toBeUndefined();
    expect(toMailboxRequest(create(ListPrivateMessagesRequestSchema, { userId: '5', sort: { field: PrivateMessageSortField.DATE_SENT } })).order).toEqual({ field: 'date_sent', descending: false });
  });
});

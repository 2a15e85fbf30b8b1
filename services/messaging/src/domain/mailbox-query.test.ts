import { describe, expect, it } from 'vitest';
import { buildMailboxQuery, type MailboxQuery, type MailboxRequest } from './mailbox-query.js';

function query(request: Partial<MailboxRequest>, callerId = '7'): MailboxQuery {
  return buildMailboxQuery(callerId, { userId: callerId, ...request });
}

describe('buildMailboxQuery', () => {
  it('defaults to received messages only, newest first, first page of 100, with content', () => {
    expect(query({})).toEqual({
      callerId: '7',
      sent: false,
      received: true,
      order: { field: 'date_sent', descending: true },
      limit: 100,
      offset: 0,
      withContent: true,
    });
  });

  it('lists the whole mailbox for the caller and a conversation for anyone else', () => {
    expect(query({ userId: '7' }).otherId).toBeUndefined();
    expect(query({ userId: '8' }).otherId).toBe('8');
  });

  it('lists received messages unless received=false, and sent ones with sent=true', () => {
    expect(query({ sent: true, received: false })).toMatchObject({ sent: true, received: false });
    expect(query({ sent: true })).toMatchObject({ sent: true, received: true });
  });

  it('treats an empty text filter as no filter', () => {
    const built = query({ subjectContains: '', contentContains: '' });
    expect(built).not.toHaveProperty('subjectContains');
    expect(built).not.toHaveProperty('contentContains');
    expect(query({ subjectContains: ' ' }).subjectContains).toBe(' ');
  });

  it('keeps a date range with equal bounds', () => {
    const instant = new Date('2026-03-01T10:00:00Z');
    expect(query({ dateSentMin: instant, dateSentMax: instant })).toMatchObject({ dateSentMin: instant, dateSentMax: instant });
  });

  it('turns page number and size into limit and offset, 0 meaning the defaults', () => {
    expect(query({ pageNumber: 3, pageSize: 25 })).toMatchObject({ limit: 25, offset: 50 });
    expect(query({ pageNumber: 0, pageSize: 0 })).toMatchObject({ limit: 100, offset: 0 });
    expect(query({ pageSize: 1000 })).toMatchObject({ limit: 1000 });
    expect(query({ pageSize: 1 })).toMatchObject({ limit: 1 });
  });

  it('keeps the given order and leaves content out on request', () => {
    expect(query({ order: { field: 'read', descending: false }, omitContent: true })).toMatchObject({ order: { field: 'read', descending: false }, withContent: false });
  });
});

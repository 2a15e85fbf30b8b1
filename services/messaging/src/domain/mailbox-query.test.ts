import { describe, expect, it } from 'vitest';
import { buildMailboxQuery, type MailboxQuery, type MailboxRequest } from './mailbox-query.js';

function query(request: Partial<MailboxRequest>, callerId = '7'): MailboxQuery {
  const built = buildMailboxQuery(callerId, { userId: callerId, ...request });
  if ('problem' in built) throw new Error(`unexpected problem ${JSON.stringify(built.problem)}`);
  return built.query;
}

function problem(request: Partial<MailboxRequest>, callerId = '7') {
  const built = buildMailboxQuery(callerId, { userId: callerId, ...request });
  if (!('problem' in built)) throw new Error('expected a problem');
  return built.problem;
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

  it('refuses sent=false with received=false as invalid_filter_combination', () => {
    expect(problem({ sent: false, received: false })).toMatchObject({ reason: 'invalid_filter_combination', parameter: 'filter[sent]' });
    expect(query({ sent: true, received: false })).toMatchObject({ sent: true, received: false });
    expect(query({ sent: true })).toMatchObject({ sent: true, received: true });
  });

  it('treats an empty text filter as no filter', () => {
    const built = query({ subjectContains: '', contentContains: '' });
    expect(built).not.toHaveProperty('subjectContains');
    expect(built).not.toHaveProperty('contentContains');
    expect(query({ subjectContains: ' ' }).subjectContains).toBe(' ');
  });

  it('accepts a date range with equal bounds and refuses a minimum after the maximum', () => {
    const instant = new Date('2026-03-01T10:00:00Z');
    expect(query({ dateSentMin: instant, dateSentMax: instant })).toMatchObject({ dateSentMin: instant, dateSentMax: instant });
    expect(problem({ dateSentMin: new Date('2026-03-02T00:00:00Z'), dateSentMax: instant })).toMatchObject({ parameter: 'filter[date_sent]', reason: 'invalid_parameter' });
  });

  it('turns page number and size into limit and offset, 0 meaning the defaults', () => {
    expect(query({ pageNumber: 3, pageSize: 25 })).toMatchObject({ limit: 25, offset: 50 });
    expect(query({ pageNumber: 0, pageSize: 0 })).toMatchObject({ limit: 100, offset: 0 });
    expect(query({ pageSize: 1000 })).toMatchObject({ limit: 1000 });
    expect(query({ pageSize: 1 })).toMatchObject({ limit: 1 });
  });

  it('refuses page sizes over 1000 or negative, and negative page numbers', () => {
    expect(problem({ pageSize: 1001 })).toMatchObject({ parameter: 'page[size]', reason: 'invalid_parameter' });
    expect(problem({ pageSize: -1 })).toMatchObject({ parameter: 'page[size]' });
    expect(problem({ pageNumber: -2 })).toMatchObject({ parameter: 'page[number]' });
  });

  it('keeps the given order and leaves content out on request', () => {
    expect(query({ order: { field: 'read', descending: false }, omitContent: true })).toMatchObject({ order: { field: 'read', descending: false }, withContent: false });
  });
});

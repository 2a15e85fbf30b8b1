import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../jsonapi/index.js';
import { PRIVATE_MESSAGE_LIST } from '../resources/private-message.resource.js';

const parse = (query: string) => parseListQuery(PRIVATE_MESSAGE_LIST, new URLSearchParams(query));

function refusal(query: string): { parameter?: string; reason?: string } {
  try {
    parse(query);
  } catch (error) {
    return (error as { details: { parameter?: string; reason?: string }[] }).details[0] ?? {};
  }
  throw new Error(`${query} was accepted`);
}

describe('PRIVATE_MESSAGE_LIST', () => {
  it('defaults to page 1 of 100, newest first, no filters (the service applies sent/received defaults)', () => {
    const query = parse('');
    expect(query.page).toEqual({ kind: 'page', number: 1, size: 100 });
    expect(query.sort).toEqual({ field: 'date_sent', descending: true });
    expect(query.filters).toEqual({});
  });

  it('parses all seven filters', () => {
    const query = parse('filter[sender]=12&filter[subject]=Re:&filter[content]=100%25&filter[date_sent]=2026-03-01,2026-03-02T10:00:00Z&filter[read]=0&filter[sent]=true&filter[received]=1');
    expect(query.filters).toMatchObject({ sender: '12', subject: 'Re:', content: '100%', read: false, sent: true, received: true });
    expect(query.filters.date_sent?.min).toEqual({ seconds: BigInt(Date.parse('2026-03-01T00:00:00Z') / 1000), nanos: 0 });
    expect(query.filters.date_sent?.max).toEqual({ seconds: BigInt(Date.parse('2026-03-02T10:00:00Z') / 1000), nanos: 0 });
  });

  it('sorts by read or date_sent in either direction, nothing else, one field only', () => {
    expect(parse('sort=read').sort).toEqual({ field: 'read', descending: false });
    expect(parse('sort=-read').sort).toEqual({ field: 'read', descending: true });
    expect(parse('sort=date_sent').sort).toEqual({ field: 'date_sent', descending: false });
    expect(refusal('sort=subject')).toMatchObject({ reason: 'invalid_sort', parameter: 'sort' });
    expect(refusal('sort=read,date_sent')).toMatchObject({ reason: 'too_many_sort_fields' });
  });

  it('pages from 1 with sizes 1 to 1000', () => {
    expect(parse('page[number]=3&page[size]=1000').page).toEqual({ kind: 'page', number: 3, size: 1000 });
    expect(parse('page[size]=1').page.size).toBe(1);
    for (const bad of ['page[size]=0', 'page[size]=1001', 'page[size]=-1', 'page[size]=ten', 'page[number]=0', 'page[number]=-1', 'page[number]=1.5', 'page[cursor]=abc']) {
      expect(refusal(bad), bad).toMatchObject({ reason: 'invalid_parameter' });
    }
  });

  it('refuses malformed filters naming the parameter, an empty text filter included', () => {
    const cases: [string, string][] = [
      ['filter[subject]=', 'filter[subject]'],
      ['filter[subject]=%20%20', 'filter[subject]'],
      ['filter[content]=', 'filter[content]'],
      ['filter[sender]=abc', 'filter[sender]'],
      ['filter[sender]=0', 'filter[sender]'],
      ['filter[read]=yes', 'filter[read]'],
      ['filter[sent]=', 'filter[sent]'],
      ['filter[date_sent]=2026-13-01', 'filter[date_sent]'],
      ['filter[date_sent]=2026-03-02,2026-03-01', 'filter[date_sent]'],
      ['filter[recipient]=1', 'filter[recipient]'],
      [`filter[subject]=${'x'.repeat(201)}`, 'filter[subject]'],
    ];
    for (const [query, parameter] of cases) expect(refusal(query), query).toEqual(expect.objectContaining({ reason: 'invalid_parameter', parameter }));
  });
});

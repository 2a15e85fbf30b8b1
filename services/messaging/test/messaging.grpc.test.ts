import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { PrivateMessageSortField, SortDirection, type ListPrivateMessagesRequest, type ListPrivateMessagesRequestSchema, type PrivateMessage } from '@inkwell/proto/messaging';
import { as, startMessagingStack, type MessagingStack } from './harness.js';

let stack: MessagingStack;
let ada: string;
let bob: string;
let cyd: string;
let dan: string;

beforeAll(async () => {
  stack = await startMessagingStack('inkwell_test_messaging_grpc');
  [ada, bob, cyd, dan] = await Promise.all(['ada', 'bob', 'cyd', 'dan'].map((name) => stack.createUser(name))) as [string, string, string, string];
});

afterAll(async () => {
  await stack?.stop();
});

async function send(from: string, to: string, subject: string, content = `${subject} (content)`): Promise<PrivateMessage> {
  const { privateMessage } = await stack.client.sendPrivateMessage({ recipientId: to, subject, content }, as(from));
  return privateMessage!;
}

/** Back-dates a message: the service always stamps "now". */
async function setDateSent(id: string, iso: string): Promise<void> {
  await stack.pool.query('UPDATE messages SET date_sent = $2 WHERE id = $1', [id, iso]);
}

type ListInit = Omit<MessageInitShape<typeof ListPrivateMessagesRequestSchema>, 'userId'> & { userId?: string };

async function list(caller: string, init: ListInit = {}): Promise<{ ids: string[]; total: number; messages: PrivateMessage[] }> {
  const response = await stack.client.listPrivateMessages({ userId: caller, ...init } as ListPrivateMessagesRequest, as(caller));
  return { ids: response.privateMessages.map((message) => message.id), total: response.total, messages: response.privateMessages };
}

async function outboxTypes(key: string): Promise<string[]> {
  const { rows } = await stack.pool.query<{ type: string }>('SELECT type FROM outbox WHERE key = $1 ORDER BY id', [key]);
  return rows.map((row) => row.type);
}

describe('SendPrivateMessage', () => {
  it('stores the message from the caller, renders the Markdown, and writes MessageSent to the outbox', async () => {
    const before = Date.now();
    const message = await send(ada, bob, '  Lunch?  ', 'Are you free *tomorrow*?');
    expect(message).toMatchObject({ senderId: ada, recipientId: bob, subject: 'Lunch?', content: 'Are you free *tomorrow*?', read: false });
    expect(message.contentHtml).toBe('<p>Are you free <em>tomorrow</em>?</p>');
    expect(Number(message.dateSent!.seconds) * 1000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(await outboxTypes(message.id)).toEqual(['inkwell.messaging.v1.MessageSent']);
  });

  it('sends to oneself', async () => {
    const message = await send(dan, dan, 'note to self');
    expect(message).toMatchObject({ senderId: dan, recipientId: dan });
  });

  it('answers NOT_FOUND for a recipient the users service does not know', async () => {
    await expect(stack.client.sendPrivateMessage({ recipientId: '987654321', subject: 's', content: 'c' }, as(ada))).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
  });

  it('refuses blank subject and content together, naming both attributes', async () => {
    const error = await stack.client.sendPrivateMessage({ recipientId: bob, subject: '   ', content: '\n\t' }, as(ada)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    expect((error as { details: unknown[] }).details).toEqual([
      expect.objectContaining({ reason: 'validation_failed', pointer: '/data/attributes/subject' }),
      expect.objectContaining({ reason: 'validation_failed', pointer: '/data/attributes/content' }),
    ]);
  });

  it('allows a 200-character subject and refuses 201; refuses content over 1 MiB', async () => {
    await expect(send(ada, bob, 's'.repeat(200))).resolves.toMatchObject({ subject: 's'.repeat(200) });
    await expect(send(ada, bob, 's'.repeat(201))).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [expect.objectContaining({ pointer: '/data/attributes/subject' })] });
    await expect(send(ada, bob, 'big', 'x'.repeat(1024 * 1024 + 1))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [expect.objectContaining({ pointer: '/data/attributes/content' })],
    });
  });

  it('counts the subject in characters as sent and the content in bytes of UTF-8', async () => {
    await expect(send(ada, bob, '😀'.repeat(200))).resolves.toMatchObject({ subject: '😀'.repeat(200) });
    await expect(send(ada, bob, ` ${'x'.repeat(200)}`)).rejects.toMatchObject({
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/subject', detail: 'subject must be at most 200 characters.' }],
    });
    // 'é' is two bytes: half as many characters reach the limit.
    await expect(send(ada, bob, 'two bytes', 'é'.repeat(512 * 1024))).resolves.toMatchObject({ subject: 'two bytes' });
    await expect(send(ada, bob, 'one too many', `${'é'.repeat(512 * 1024)}a`)).rejects.toMatchObject({
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/content', detail: 'content must be at most 1048576 bytes (1 MiB) of UTF-8.' }],
    });
  });

  it('needs a signed-in user', async () => {
    await expect(stack.client.sendPrivateMessage({ recipientId: bob, subject: 's', content: 'c' }, { caller: { requestId: 'app', appId: '1', scopes: ['write_pms'] } })).rejects.toMatchObject({
      code: ErrorCode.UNAUTHENTICATED,
      details: [{ reason: 'invalid_token' }],
    });
  });

  it('needs write_pms to send and read_pms to read, before anything else is looked at', async () => {
    const readOnly = { caller: { requestId: 'read-only', userId: ada, scopes: ['read_pms'] } };
    await expect(stack.client.sendPrivateMessage({ recipientId: '987654321', subject: '', content: '' }, readOnly)).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
      details: [{ reason: 'insufficient_scope', scope: 'write_pms' }],
    });
    const writeOnly = { caller: { requestId: 'write-only', userId: ada, scopes: ['write_pms'] } };
    for (const refused of [stack.client.listPrivateMessages({ userId: ada }, writeOnly), stack.client.getPrivateMessage({ id: '1' }, writeOnly), stack.client.updatePrivateMessage({ id: '1', read: true }, writeOnly)]) {
      await expect(refused).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED, details: [{ reason: 'insufficient_scope', scope: 'read_pms' }] });
    }
  });
});

describe('events', () => {
  it('publishes MessageSent and MessageReadChanged to messaging.message.v1 through the outbox, keyed by the message id', async () => {
    const message = await send(ada, bob, 'to the world (of consumers)');
    await stack.client.updatePrivateMessage({ id: message.id, read: true }, as(bob));
    const events = await stack.readEvents(message.id);
    expect(events.map((event) => event.payload.case)).toEqual(['messageSent', 'messageReadChanged']);
    expect(events[0]!.payload.value).toMatchObject({ messageId: message.id, senderId: ada, recipientId: bob, dateSent: message.dateSent });
    expect(events[1]!.payload.value).toMatchObject({ messageId: message.id, senderId: ada, recipientId: bob, read: true });
  });
});

describe('GetPrivateMessage', () => {
  it('shows a message to its sender and recipient, and to nobody else', async () => {
    const message = await send(ada, bob, 'secret plans');
    expect((await stack.client.getPrivateMessage({ id: message.id }, as(ada))).privateMessage?.subject).toBe('secret plans');
    expect((await stack.client.getPrivateMessage({ id: message.id }, as(bob))).privateMessage?.subject).toBe('secret plans');
    await expect(stack.client.getPrivateMessage({ id: message.id }, as(cyd))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(stack.client.getPrivateMessage({ id: '987654321' }, as(ada))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });
});

describe('UpdatePrivateMessage', () => {
  it('lets the recipient mark read and unread, publishing one event per actual change', async () => {
    const message = await send(ada, bob, 'mark me');
    const read = await stack.client.updatePrivateMessage({ id: message.id, read: true }, as(bob));
    expect(read.privateMessage?.read).toBe(true);
    await stack.client.updatePrivateMessage({ id: message.id, read: true }, as(bob));
    const unread = await stack.client.updatePrivateMessage({ id: message.id, read: false }, as(bob));
    expect(unread.privateMessage?.read).toBe(false);
    expect(await outboxTypes(message.id)).toEqual([
      'inkwell.messaging.v1.MessageSent',
      'inkwell.messaging.v1.MessageReadChanged',
      'inkwell.messaging.v1.MessageReadChanged',
    ]);
  });

  it('refuses the sender with PERMISSION_DENIED and hides the message from others with NOT_FOUND', async () => {
    const message = await send(ada, bob, 'not yours to mark');
    await expect(stack.client.updatePrivateMessage({ id: message.id, read: true }, as(ada))).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
      details: [expect.objectContaining({ reason: 'forbidden' })],
    });
    await expect(stack.client.updatePrivateMessage({ id: message.id, read: true }, as(cyd))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect((await stack.client.getPrivateMessage({ id: message.id }, as(bob))).privateMessage?.read).toBe(false);
  });

  it('lets someone who wrote to themself mark it read', async () => {
    const message = await send(dan, dan, 'self, read me');
    expect((await stack.client.updatePrivateMessage({ id: message.id, read: true }, as(dan))).privateMessage?.read).toBe(true);
  });
});

describe('ListPrivateMessages', () => {
  // A closed world of four users: eve ↔ fay ↔ gus, and hal who exchanges nothing with them.
  let eve: string;
  let fay: string;
  let gus: string;
  let hal: string;
  const m: Record<string, PrivateMessage> = {};

  beforeAll(async () => {
    [eve, fay, gus, hal] = (await Promise.all(['eve', 'fay', 'gus', 'hal'].map((name) => stack.createUser(name)))) as [string, string, string, string];
    // Sent in this order; dates set explicitly so that ranges and ties can be checked.
    const plan: [string, string, string, string, string, string][] = [
      ['f1', fay, eve, 'Book club', 'We read *Dune*', '2026-03-01T00:00:00.000Z'],
      ['g1', gus, eve, 'Re: Book CLUB', 'count me in', '2026-03-01T23:59:59.999Z'],
      ['e1', eve, fay, 'Question', 'which edition? 100% sure', '2026-03-02T00:00:00.000Z'],
      ['f2', fay, eve, 'Answer_1', 'the first one', '2026-03-02T12:00:00.000Z'],
      ['self', eve, eve, 'Reminder', 'buy the book', '2026-03-03T08:00:00.000Z'],
      ['g2', gus, fay, 'Hello fay', 'private to fay and gus', '2026-03-03T09:00:00.000Z'],
      ['f3', fay, eve, 'Same time A', 'tie one', '2026-03-04T10:00:00.000Z'],
      ['f4', fay, eve, 'Same time B', 'tie two', '2026-03-04T10:00:00.000Z'],
    ];
    for (const [key, from, to, subject, content, date] of plan) {
      m[key] = await send(from, to, subject, content);
      await setDateSent(m[key]!.id, date);
    }
    await stack.client.updatePrivateMessage({ id: m.f2!.id, read: true }, as(eve));
    await stack.client.updatePrivateMessage({ id: m.g1!.id, read: true }, as(eve));
  });

  const ids = (...keys: string[]) => keys.map((key) => m[key]!.id);

  it('defaults to what the caller received, newest first, ties by id descending', async () => {
    const result = await list(eve);
    expect(result.ids).toEqual(ids('f4', 'f3', 'self', 'f2', 'g1', 'f1'));
    expect(result.total).toBe(6);
    expect(result.messages[0]).toMatchObject({ subject: 'Same time B', content: 'tie two', contentHtml: '<p>tie two</p>' });
  });

  it('adds sent messages with sent=true, lists a message to oneself once, and lists only sent with received=false', async () => {
    expect((await list(eve, { filter: { sent: true } })).ids).toEqual(ids('f4', 'f3', 'self', 'f2', 'e1', 'g1', 'f1'));
    expect((await list(eve, { filter: { sent: true } })).total).toBe(7);
    expect((await list(eve, { filter: { sent: true, received: false } })).ids).toEqual(ids('self', 'e1'));
  });

  it('refuses sent=false with received=false', async () => {
    await expect(list(eve, { filter: { sent: false, received: false } })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [expect.objectContaining({ reason: 'invalid_filter_combination' })],
    });
  });

  it('lists the conversation with another user: received from them by default, both ways with sent=true', async () => {
    expect((await list(eve, { userId: fay })).ids).toEqual(ids('f4', 'f3', 'f2', 'f1'));
    expect((await list(eve, { userId: fay, filter: { sent: true } })).ids).toEqual(ids('f4', 'f3', 'f2', 'e1', 'f1'));
    expect((await list(eve, { userId: fay, filter: { sent: true, received: false } })).ids).toEqual(ids('e1'));
    expect((await list(fay, { userId: eve, filter: { sent: true } })).ids).toEqual(ids('f4', 'f3', 'f2', 'e1', 'f1'));
  });

  it('answers an empty conversation with an existing user with no messages, and with an unknown user NOT_FOUND', async () => {
    expect(await list(eve, { userId: hal, filter: { sent: true } })).toMatchObject({ ids: [], total: 0 });
    await expect(list(eve, { userId: '987654321' })).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('filters by sender', async () => {
    expect((await list(eve, { filter: { senderId: gus } })).ids).toEqual(ids('g1'));
    expect((await list(eve, { filter: { senderId: eve, sent: true } })).ids).toEqual(ids('self', 'e1'));
    expect((await list(eve, { filter: { senderId: hal } })).total).toBe(0);
  });

  it('filters subjects by case-insensitive substring, with % and _ taken literally, "" filtering nothing', async () => {
    expect((await list(eve, { filter: { subjectContains: 'book club' } })).ids).toEqual(ids('g1', 'f1'));
    expect((await list(eve, { filter: { subjectContains: 'BOOK' } })).ids).toEqual(ids('g1', 'f1'));
    expect((await list(eve, { filter: { subjectContains: '_1' } })).ids).toEqual(ids('f2'));
    expect((await list(eve, { filter: { subjectContains: '_' } })).ids).toEqual(ids('f2'));
    expect((await list(eve, { filter: { subjectContains: '' } })).total).toBe(6);
    expect((await list(eve, { filter: { subjectContains: 'nothing like this' } })).total).toBe(0);
  });

  it('filters content by case-insensitive substring, % literal', async () => {
    expect((await list(eve, { filter: { contentContains: 'DUNE' } })).ids).toEqual(ids('f1'));
    expect((await list(eve, { filter: { contentContains: '%', sent: true } })).ids).toEqual(ids('e1'));
    expect((await list(eve, { filter: { contentContains: '%' } })).ids).toEqual([]);
  });

  it('filters by read state', async () => {
    expect((await list(eve, { filter: { read: true } })).ids).toEqual(ids('f2', 'g1'));
    expect((await list(eve, { filter: { read: false } })).ids).toEqual(ids('f4', 'f3', 'self', 'f1'));
  });

  it('keeps both edges of a date range (inclusive, to the millisecond)', async () => {
    const range = (min?: string, max?: string) => ({
      ...(min === undefined ? {} : { dateSentMin: { seconds: BigInt(Math.floor(Date.parse(min) / 1000)), nanos: (Date.parse(min) % 1000) * 1_000_000 } }),
      ...(max === undefined ? {} : { dateSentMax: { seconds: BigInt(Math.floor(Date.parse(max) / 1000)), nanos: (Date.parse(max) % 1000) * 1_000_000 } }),
    });
    // The whole of 2026-03-01 as the gateway sends it: first to last nanosecond.
    const dayMax = { seconds: BigInt(Date.parse('2026-03-01T23:59:59Z') / 1000), nanos: 999_999_999 };
    expect((await list(eve, { filter: { ...range('2026-03-01T00:00:00Z'), dateSentMax: dayMax } })).ids).toEqual(ids('g1', 'f1'));
    expect((await list(eve, { filter: range('2026-03-01T00:00:00.001Z', '2026-03-01T23:59:59.998Z') })).ids).toEqual([]);
    expect((await list(eve, { filter: range('2026-03-04T10:00:00Z') })).ids).toEqual(ids('f4', 'f3'));
    expect((await list(eve, { filter: range(undefined, '2026-03-01T00:00:00Z') })).ids).toEqual(ids('f1'));
    await expect(list(eve, { filter: range('2026-03-02T00:00:00Z', '2026-03-01T00:00:00Z') })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [expect.objectContaining({ parameter: 'filter[date_sent]' })],
    });
  });

  it('bounds the text filters: filter[subject] at 200 characters, filter[content] at 1000', async () => {
    await expect(list(eve, { filter: { subjectContains: 'x'.repeat(200), contentContains: 'x'.repeat(1000) } })).resolves.toMatchObject({ ids: [] });
    await expect(list(eve, { filter: { subjectContains: 'x'.repeat(201), contentContains: 'x'.repeat(1001) } })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [expect.objectContaining({ reason: 'invalid_parameter', parameter: 'filter[subject]' }), expect.objectContaining({ reason: 'invalid_parameter', parameter: 'filter[content]' })],
    });
  });

  it('sorts by date_sent ascending with ties by id ascending', async () => {
    const sort = { field: PrivateMessageSortField.DATE_SENT, direction: SortDirection.ASCENDING };
    expect((await list(eve, { sort })).ids).toEqual(ids('f1', 'g1', 'f2', 'self', 'f3', 'f4'));
  });

  it('sorts by read (unread first ascending, read first descending), ties by id in the same direction', async () => {
    const byIdAsc = (keys: string[]) => ids(...keys).sort((a, b) => Number(a) - Number(b));
    const ascending = await list(eve, { sort: { field: PrivateMessageSortField.READ, direction: SortDirection.ASCENDING } });
    expect(ascending.ids).toEqual([...byIdAsc(['f1', 'self', 'f3', 'f4']), ...byIdAsc(['g1', 'f2'])]);
    const descending = await list(eve, { sort: { field: PrivateMessageSortField.READ, direction: SortDirection.DESCENDING } });
    expect(descending.ids).toEqual([...byIdAsc(['g1', 'f2']).reverse(), ...byIdAsc(['f1', 'self', 'f3', 'f4']).reverse()]);
  });

  it('pages by number and size with the total over all pages; past the end is empty', async () => {
    expect(await list(eve, { pageSize: 4, pageNumber: 1 })).toMatchObject({ ids: ids('f4', 'f3', 'self', 'f2'), total: 6 });
    expect(await list(eve, { pageSize: 4, pageNumber: 2 })).toMatchObject({ ids: ids('g1', 'f1'), total: 6 });
    expect(await list(eve, { pageSize: 4, pageNumber: 3 })).toMatchObject({ ids: [], total: 6 });
    expect(await list(eve, { pageSize: 1, pageNumber: 6 })).toMatchObject({ ids: ids('f1'), total: 6 });
    expect(await list(eve, { filter: { sent: true }, pageSize: 3, pageNumber: 3 })).toMatchObject({ ids: ids('f1'), total: 7 });
    await expect(list(eve, { pageSize: 1001 })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [expect.objectContaining({ parameter: 'page[size]' })] });
  });

  it('leaves content out when asked', async () => {
    const [first] = (await list(eve, { omitContent: true, pageSize: 1 })).messages;
    expect(first).toMatchObject({ subject: 'Same time B', content: '', contentHtml: '' });
  });

  it('never shows or counts another pair’s messages to a third user, whatever the filters', async () => {
    // hal exchanged nothing with eve, fay or gus.
    for (const userId of [hal, eve, fay, gus]) {
      for (const filter of [{}, { sent: true }, { senderId: fay }, { senderId: gus, sent: true }, { subjectContains: 'book' }, { contentContains: 'fay' }, { read: true }]) {
        expect(await list(hal, { userId, filter }), `${userId} ${JSON.stringify(filter)}`).toMatchObject({ ids: [], total: 0 });
      }
    }
    // eve sees nothing of the fay ↔ gus message, not even through the conversation with gus.
    const eveWithGus = await list(eve, { userId: gus, filter: { sent: true, contentContains: 'private' } });
    expect(eveWithGus).toMatchObject({ ids: [], total: 0 });
    await expect(stack.client.getPrivateMessage({ id: m.g2!.id }, as(eve))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });
});

describe('ListPrivateMessages text budget', () => {
  it('refuses a page carrying more than 16 MiB of text but serves it one message at a time or without content', async () => {
    const [ivy, jon] = (await Promise.all(['ivy', 'jon'].map((name) => stack.createUser(name)))) as [string, string];
    // Nine messages of 1 MiB content plus 1 MiB of HTML each: 18 MiB together.
    await stack.pool.query(
      `INSERT INTO messages (sender_id, recipient_id, subject, content, content_html)
       SELECT $1, $2, 'big ' || n, repeat('a', 1048576), repeat('b', 1048576) FROM generate_series(1, 9) n`,
      [jon, ivy],
    );
    await expect(list(ivy, { pageSize: 9 })).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, details: [expect.objectContaining({ parameter: 'page[size]' })] });
    const single = await list(ivy, { pageSize: 1 });
    expect(single.messages[0]?.content).toHaveLength(1048576);
    expect(single.total).toBe(9);
    expect((await list(ivy, { pageSize: 9, omitContent: true })).ids).toHaveLength(9);
  });
});

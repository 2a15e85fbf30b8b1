import { closeMarkdown } from '@inkwell/markdown';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryMessaging } from '../testing/memory.repositories.js';
import type { Caller } from './private-message.service.js';

const ada: Caller = { requestId: 'r1', userId: '1', scopes: [] };
const grace: Caller = { requestId: 'r2', userId: '2', scopes: [] };
const alan: Caller = { requestId: 'r3', userId: '3', scopes: [] };
const draft = { subject: 'Hello', content: 'Nice *story*.' };

afterAll(closeMarkdown);

describe('PrivateMessageService sending', () => {
  it('stores the message from the caller with its subject trimmed and its Markdown rendered; oneself is a recipient too', async () => {
    const { messages } = memoryMessaging(['1', '2']);
    const sent = await messages.send('2', { subject: '  Hello  ', content: draft.content }, ada);
    expect(sent).toMatchObject({ senderId: '1', recipientId: '2', subject: 'Hello', content: 'Nice *story*.', read: false });
    expect(sent.contentHtml).toContain('<em>story</em>');
    expect(await messages.send('1', draft, ada)).toMatchObject({ senderId: '1', recipientId: '1' });
  });

  it('answers NOT_FOUND for a recipient the users service does not know, before looking at the draft', async () => {
    const { messages, store } = memoryMessaging(['1']);
    await expect(messages.send('2', draft, ada)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'The user does not exist.' });
    await expect(messages.send('2', { subject: '', content: '' }, ada)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(store.messages.size).toBe(0);
  });
});

describe('PrivateMessageService visibility', () => {
  it('shows a message to its sender and recipient, and to nobody else (NOT_FOUND)', async () => {
    const { messages } = memoryMessaging(['1', '2', '3']);
    const sent = await messages.send('2', draft, ada);

    expect((await messages.get(sent.id, ada)).id).toBe(sent.id);
    expect((await messages.get(sent.id, grace)).id).toBe(sent.id);
    await expect(messages.get(sent.id, alan)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(messages.get('999', ada)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lets the recipient mark read and unread; the sender is refused (403), others do not see it (404)', async () => {
    const { messages } = memoryMessaging(['1', '2', '3']);
    const sent = await messages.send('2', draft, ada);

    expect((await messages.update(sent.id, { read: true }, grace)).read).toBe(true);
    expect((await messages.update(sent.id, {}, grace)).read).toBe(true);
    expect((await messages.update(sent.id, { read: false }, grace)).read).toBe(false);
    await expect(messages.update(sent.id, { read: true }, ada)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(messages.update(sent.id, { read: true }, alan)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const toSelf = await messages.send('1', draft, ada);
    expect((await messages.update(toSelf.id, { read: true }, ada)).read).toBe(true);
  });
});

describe('PrivateMessageService mailboxes', () => {
  it('lists what the caller received by default, newest first; sent ones with sent=true; never another pair’s messages', async () => {
    const { messages } = memoryMessaging(['1', '2', '3']);
    const first = await messages.send('1', draft, grace);
    const second = await messages.send('1', draft, alan);
    const mine = await messages.send('2', draft, ada);
    await messages.send('3', draft, grace);

    const inbox = await messages.list({ userId: '1' }, ada);
    expect(inbox.messages.map((message) => message.id)).toEqual([second.id, first.id]);
    expect(inbox.total).toBe(2);
    expect((await messages.list({ userId: '1', sent: true }, ada)).messages.map((message) => message.id)).toEqual([mine.id, second.id, first.id]);
    expect((await messages.list({ userId: '1', sent: true, received: false }, ada)).messages.map((message) => message.id)).toEqual([mine.id]);
  });

  it('lists a conversation with another user: received from them by default, both ways with sent=true', async () => {
    const { messages } = memoryMessaging(['1', '2', '3']);
    const fromGrace = await messages.send('1', draft, grace);
    const toGrace = await messages.send('2', draft, ada);
    await messages.send('1', draft, alan);

    expect((await messages.list({ userId: '2' }, ada)).messages.map((message) => message.id)).toEqual([fromGrace.id]);
    expect((await messages.list({ userId: '2', sent: true }, ada)).messages.map((message) => message.id)).toEqual([toGrace.id, fromGrace.id]);
  });

  it('refuses a page carrying more than 16 MiB of text, but serves it one message at a time or without content', async () => {
    const { messages, store } = memoryMessaging(['1', '2']);
    const nineMiB = 'x'.repeat(9 * 1024 * 1024);
    for (let n = 0; n < 2; n++) await store.create({ senderId: '2', recipientId: '1', subject: 'Long', content: nineMiB, contentHtml: '' });

    await expect(messages.list({ userId: '1' }, ada)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'invalid_parameter', parameter: 'page[size]' }] });
    expect((await messages.list({ userId: '1', pageSize: 1 }, ada)).messages[0]!.content).toHaveLength(nineMiB.length);
    expect((await messages.list({ userId: '1', omitContent: true }, ada)).messages).toHaveLength(2);
  });

  it('answers an empty conversation with an existing user with nothing, and with an unknown user NOT_FOUND', async () => {
    const { messages } = memoryMessaging(['1', '2']);
    expect(await messages.list({ userId: '2' }, ada)).toEqual({ messages: [], total: 0 });
    await expect(messages.list({ userId: '9' }, ada)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(messages.list({ userId: 'me' }, ada)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('PrivateMessageService blocks (docs/api/safety.md, "Blocking")', () => {
  it('refuses a message either way between users one of whom blocks the other, exactly as one to nobody', async () => {
    const { messages, relations, store } = memoryMessaging(['1', '2']);
    relations.blocks.add('1:2');
    const toNobody = await messages.send('9', draft, ada).catch((error: unknown) => error);
    for (const [to, from] of [['2', ada], ['1', grace]] as const) {
      const refused = await messages.send(to, draft, from).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'NOT_FOUND', message: (toNobody as Error).message });
    }
    expect(store.messages.size).toBe(0);
  });

  it('hides the messages of a user the caller blocks from their lists and reads while the block stands, not from the sender', async () => {
    const { messages, relations } = memoryMessaging(['1', '2', '3']);
    const fromGrace = await messages.send('1', draft, grace);
    const fromAlan = await messages.send('1', draft, alan);
    relations.blocks.add('1:2');
    expect((await messages.list({ userId: '1' }, ada)).messages.map((message) => message.id)).toEqual([fromAlan.id]);
    expect((await messages.list({ userId: '2' }, ada)).total).toBe(0);
    await expect(messages.get(fromGrace.id, ada)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await messages.get(fromGrace.id, grace)).toMatchObject({ id: fromGrace.id });
    relations.blocks.delete('1:2');
    expect(await messages.get(fromGrace.id, ada)).toMatchObject({ id: fromGrace.id });
  });
});

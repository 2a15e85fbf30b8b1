import { MemorySequence } from '@inkwell/testing/memory';
import { PAGE_TEXT_BUDGET_BYTES, type MailboxQuery } from '../domain/mailbox-query.js';
import { isParty, type PrivateMessage } from '../domain/private-message.js';
import type { MailboxPage, NewMessage } from '../repositories/private-message.repository.js';
import { PrivateMessageService, type MessageStore, type UserDirectory } from '../services/private-message.service.js';

/** PrivateMessageRepository in memory: increasing numeric ids, the same mailbox query semantics and text budget as the SQL. */
export class MemoryMessageRepository implements MessageStore {
  readonly messages = new Map<string, PrivateMessage>();
  readonly #sequence = new MemorySequence();

  async findById(id: string): Promise<PrivateMessage | undefined> {
    const found = this.messages.get(id);
    return found && { ...found };
  }

  async create(message: NewMessage, signal?: AbortSignal): Promise<PrivateMessage> {
    signal?.throwIfAborted();
    const created: PrivateMessage = { id: this.#sequence.nextId(), ...message, dateSent: this.#sequence.now(), read: false };
    this.messages.set(created.id, created);
    return { ...created };
  }

  async setRead(id: string, read: boolean): Promise<PrivateMessage | undefined> {
    const found = this.messages.get(id);
    if (!found) return undefined;
    found.read = read;
    return { ...found };
  }

  async listPage(query: MailboxQuery): Promise<MailboxPage> {
    const matching = [...this.messages.values()].filter((message) => inMailbox(message, query) && passesFilters(message, query));
    const direction = query.order.descending ? -1 : 1;
    const value = (message: PrivateMessage) => (query.order.field === 'read' ? Number(message.read) : message.dateSent.getTime());
    matching.sort((a, b) => (value(a) - value(b) || Number(a.id) - Number(b.id)) * direction);
    const page = matching.slice(query.offset, query.offset + query.limit).map((message) => (query.withContent ? { ...message } : { ...message, content: '', contentHtml: '' }));
    const textBytes = page.reduce((sum, message) => sum + Buffer.byteLength(message.content) + Buffer.byteLength(message.contentHtml), 0);
    const overBudget = page.length > 1 && textBytes > PAGE_TEXT_BUDGET_BYTES;
    return { messages: overBudget ? page.map((message) => ({ ...message, content: '', contentHtml: '' })) : page, total: matching.length, overBudget };
  }
}

/** The caller's side of the query: the mailbox (received and/or sent) or the conversation with `otherId`. */
function inMailbox(message: PrivateMessage, query: MailboxQuery): boolean {
  const me = query.callerId;
  if (query.otherId === undefined) {
    return (query.received && message.recipientId === me) || (query.sent && message.senderId === me && (!query.received || message.recipientId !== me));
  }
  const between = isParty(message, me) && isParty(message, query.otherId) && (message.senderId === me || message.senderId === query.otherId);
  if (!between) return false;
  if (query.sent && query.received) return true;
  return message.senderId === (query.received ? query.otherId : me);
}

function passesFilters(message: PrivateMessage, query: MailboxQuery): boolean {
  if (query.senderId !== undefined && message.senderId !== query.senderId) return false;
  if (query.subjectContains !== undefined && !message.subject.toLowerCase().includes(query.subjectContains.toLowerCase())) return false;
  if (query.contentContains !== undefined && !message.content.toLowerCase().includes(query.contentContains.toLowerCase())) return false;
  if (query.dateSentMin !== undefined && message.dateSent < query.dateSentMin) return false;
  if (query.dateSentMax !== undefined && message.dateSent > query.dateSentMax) return false;
  if (query.read !== undefined && message.read !== query.read) return false;
  return true;
}

/** The users service's answer to "does this user exist", from a fixed set of ids. */
export class MemoryUserDirectory implements UserDirectory {
  constructor(readonly userIds: Set<string>) {}

  async exists(id: string): Promise<boolean> {
    return this.userIds.has(id);
  }
}

/** PrivateMessageService over memory repositories, with users `userIds`; the stores to arrange and inspect. */
export function memoryMessaging(userIds: readonly string[]): { messages: PrivateMessageService; store: MemoryMessageRepository; users: MemoryUserDirectory } {
  const store = new MemoryMessageRepository();
  const users = new MemoryUserDirectory(new Set(userIds));
  return { messages: new PrivateMessageService(store, users), store, users };
}

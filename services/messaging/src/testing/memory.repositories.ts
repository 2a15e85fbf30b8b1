import type { AppliedStory } from '@inkwell/known-stories';
import { MemorySequence } from '@inkwell/testing/memory';
import { create } from '@bufbuild/protobuf';
import { GetRelationsResponseSchema, type GetRelationsResponse } from '@inkwell/proto/users';
import type { NotificationKind } from '../domain/notification.js';
import type { StoryChange } from '../domain/notification-event.js';
import type { AppliedChapter, FanoutRequest, SingleNotification } from '../repositories/notification-event.repository.js';
import type { NotificationEventStore } from '../services/notification-event.service.js';
import { PAGE_TEXT_BUDGET_BYTES, type MailboxQuery } from '../domain/mailbox-query.js';
import { isParty, type PrivateMessage } from '../domain/private-message.js';
import type { MailboxPage, NewMessage } from '../repositories/private-message.repository.js';
import { PrivateMessageService, type MessageStore, type UserDirectory, type UserRelations } from '../services/private-message.service.js';

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
  if (query.hiddenSenderIds?.includes(message.senderId) === true) return false;
  return true;
}

/** The users service's answer to "does this user exist", from a fixed set of ids. */
export class MemoryUserDirectory implements UserDirectory {
  constructor(readonly userIds: Set<string>) {}

  async exists(id: string): Promise<boolean> {
    return this.userIds.has(id);
  }
}

/** The users service's blocks, as `blocker:blocked` pairs (mutes play no part in messages). */
export class MemoryUserRelations implements UserRelations {
  readonly blocks = new Set<string>();

  async blockedEitherWay(userId: string, otherUserId: string): Promise<boolean> {
    return this.blocks.has(`${userId}:${otherUserId}`) || this.blocks.has(`${otherUserId}:${userId}`);
  }

  async relationsOf(userId: string): Promise<GetRelationsResponse> {
    const blockedUserIds = [...this.blocks].filter((pair) => pair.startsWith(`${userId}:`)).map((pair) => pair.slice(userId.length + 1));
    return create(GetRelationsResponseSchema, { blockedUserIds });
  }
}

/** PrivateMessageService over memory repositories, with users `userIds`; the stores to arrange and inspect. */
export function memoryMessaging(userIds: readonly string[]): { messages: PrivateMessageService; store: MemoryMessageRepository; users: MemoryUserDirectory; relations: MemoryUserRelations } {
  const store = new MemoryMessageRepository();
  const users = new MemoryUserDirectory(new Set(userIds));
  const relations = new MemoryUserRelations();
  return { messages: new PrivateMessageService(store, users, relations), store, users, relations };
}

/**
 * The writes of NotificationEventService, recorded in memory: stories and chapters as the copy
 * would take them (no version checks), notifications unique per kind, subject and user, fan-outs
 * unique per kind and subject, and the chapters a claim returns (set by the test).
 */
export class MemoryNotificationEventStore implements NotificationEventStore {
  readonly stories = new Map<string, StoryChange>();
  readonly follows = new Map<string, { followerId: string; followedId: string; removed: boolean }>();
  readonly shelfItems = new Map<string, { ownerId: string; storyId: string; removed: boolean }>();
  readonly notifications = new Map<string, SingleNotification>();
  readonly fanouts = new Map<string, FanoutRequest>();
  readonly removed: string[] = [];
  /** What claimChaptersToAnnounce answers next (then nothing). */
  dueChapters: Array<{ chapterId: string; authorId: string; publishedAt: Date }> = [];

  async applyStory(story: StoryChange): Promise<AppliedStory> {
    const previous = this.stories.get(story.storyId);
    this.stories.set(story.storyId, story);
    return { ...(previous === undefined ? {} : { previous }), current: story, replaced: previous !== undefined };
  }

  async storyAuthor(storyId: string): Promise<string | undefined> {
    return this.stories.get(storyId)?.authorId;
  }

  async applyChapter(): Promise<AppliedChapter> {
    return { taken: true };
  }

  async claimChaptersToAnnounce(): Promise<Array<{ chapterId: string; authorId: string; publishedAt: Date }>> {
    const due = this.dueChapters;
    this.dueChapters = [];
    return due;
  }

  async addFollow(followId: string, followerId: string, followedId: string): Promise<void> {
    if (!this.follows.has(followId)) this.follows.set(followId, { followerId, followedId, removed: false });
  }

  async removeFollow(followId: string, followerId: string, followedId: string): Promise<void> {
    this.follows.set(followId, { followerId, followedId, removed: true });
  }

  async addShelfItem(itemId: string, ownerId: string, storyId: string): Promise<void> {
    if (!this.shelfItems.has(itemId)) this.shelfItems.set(itemId, { ownerId, storyId, removed: false });
  }

  async removeShelfItem(itemId: string, ownerId: string, storyId: string): Promise<void> {
    this.shelfItems.set(itemId, { ownerId, storyId, removed: true });
  }

  async notify(notification: SingleNotification): Promise<void> {
    const key = `${notification.kind}:${notification.subjectId}:${notification.userId}`;
    if (!this.notifications.has(key)) this.notifications.set(key, notification);
  }

  async enqueueFanout(fanout: FanoutRequest): Promise<void> {
    const key = `${fanout.kind}:${fanout.subjectId}`;
    if (!this.fanouts.has(key)) this.fanouts.set(key, fanout);
  }

  async removeSubject(kind: NotificationKind, subjectId: string): Promise<void> {
    this.removed.push(`${kind}:${subjectId}`);
  }
}

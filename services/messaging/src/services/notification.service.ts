import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '@inkwell/errors';
import { decodeAfter, encodeAfter, FEED_SIZE, isNotificationId, pageSizeOf, type HiddenNotifications, type Notification, type NotificationKind, type ReadMark } from '../domain/notification.js';
import type { NotificationRepository } from '../repositories/notification.repository.js';
import type { Caller, UserRelations } from './private-message.service.js';

/** What the inbox rules read and write: NotificationRepository, or a memory store in unit tests. */
export type NotificationStore = Pick<
  NotificationRepository,
  'listPage' | 'unreadCount' | 'setRead' | 'findVisible' | 'markRead' | 'saveFeedToken' | 'deleteFeedToken' | 'feedByToken'
>;

/** A list request as the transport hands it over. */
export interface InboxRequest {
  /** The user of the path: '0' (or '') for the caller, else it must be the caller. */
  userId: string;
  read?: boolean;
  kinds?: readonly NotificationKind[];
  /** 0: the default size. */
  pageSize: number;
  /** next after of the previous page; '' for the first. */
  after: string;
}

/** One page of the inbox, the position of the next page ('' on the last), and the unread count. */
export interface InboxListing {
  notifications: Notification[];
  nextAfter: string;
  unread: number;
}

/** A new feed token: shown once. */
export interface IssuedFeedToken {
  token: string;
  dateCreated: Date;
}

/** The length of a feed token: 32 bytes in base64url without padding. */
const FEED_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The stored form of a feed token. */
function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * The rules of the notifications inbox (docs/api/updates.md, "Notifications"): a caller only ever
 * sees, counts and marks their own visible notifications; anyone else's, and a path naming
 * another user, is NOT_FOUND. The access options of NotificationService admit only signed-in
 * users with the read_notifications scope, except the feed, whose token is its credential.
 * With `relations`, the list, every unread count and the feed leave out what the owner's blocks and
 * mutes hide (docs/api/safety.md), asked of the users service once per page, so that a block or
 * mute counts at once, also for notifications written before it.
 */
export class NotificationService {
  constructor(
    private readonly notifications: NotificationStore,
    private readonly relations?: Pick<UserRelations, 'relationsOf'>,
  ) {}

  /** One page of the caller's notifications, newest first, with their unread count (whatever the filters). */
  async list(request: InboxRequest, caller: Caller): Promise<InboxListing> {
    const userId = ownInbox(request.userId, caller);
    let beforeId: string | undefined;
    if (request.after !== '') {
      beforeId = decodeAfter(request.after);
      if (beforeId === undefined) throw AppError.badParameter('page[cursor]', 'The cursor is malformed. Use links.next of the previous page.', 'invalid_cursor');
    }
    const pageSize = pageSizeOf(request.pageSize);
    const hidden = await this.hiddenFor(userId, caller);
    const [page, unread] = await Promise.all([
      this.notifications.listPage({
        userId,
        pageSize,
        ...(hidden === undefined ? {} : { hidden }),
        ...(beforeId === undefined ? {} : { beforeId }),
        ...(request.read === undefined ? {} : { read: request.read }),
        ...(request.kinds === undefined ? {} : { kinds: request.kinds }),
      }),
      this.notifications.unreadCount(userId, hidden),
    ]);
    const last = page.notifications.at(-1);
    return { notifications: page.notifications, nextAfter: page.more && last !== undefined ? encodeAfter(last.id) : '', unread };
  }

  /** One of the caller's visible notifications, not hidden by their blocks and mutes; NOT_FOUND otherwise. */
  async get(id: string, caller: Caller): Promise<Notification> {
    const userId = signedInUser(caller);
    const notification = isNotificationId(id) ? await this.notifications.findVisible(id, userId, await this.hiddenFor(userId, caller)) : undefined;
    if (notification === undefined) throw AppError.notFound('notification');
    return notification;
  }

  /** Marks one of the caller's visible notifications (not hidden by blocks and mutes) read or unread; NOT_FOUND otherwise. Returns it and the unread count after. */
  async update(id: string, read: boolean, caller: Caller): Promise<{ notification: Notification; unread: number }> {
    const userId = signedInUser(caller);
    const hidden = isNotificationId(id) ? await this.hiddenFor(userId, caller) : undefined;
    const notification = isNotificationId(id) ? await this.notifications.setRead(id, userId, read, hidden) : undefined;
    if (notification === undefined) throw AppError.notFound('notification');
    return { notification, unread: await this.notifications.unreadCount(userId, hidden) };
  }

  /** Marks the caller's visible unread notifications read up to `mark`; returns how many, and the unread count after. */
  async markRead(pathUserId: string, mark: ReadMark, caller: Caller): Promise<{ marked: number; unread: number }> {
    const userId = ownInbox(pathUserId, caller);
    const marked = await this.notifications.markRead(userId, mark);
    return { marked, unread: await this.notifications.unreadCount(userId, await this.hiddenFor(userId, caller)) };
  }

  /** A new private feed token for the caller, replacing any previous one (which stops working at once). */
  async createFeedToken(pathUserId: string, caller: Caller): Promise<IssuedFeedToken> {
    const userId = ownInbox(pathUserId, caller);
    const token = randomBytes(32).toString('base64url');
    const dateCreated = await this.notifications.saveFeedToken(userId, hashToken(token));
    return { token, dateCreated };
  }

  /** Revokes the caller's feed token; false when there was none. */
  async revokeFeedToken(pathUserId: string, caller: Caller): Promise<boolean> {
    return this.notifications.deleteFeedToken(ownInbox(pathUserId, caller));
  }

  /**
   * The owner of a live feed token and their newest visible notifications (at most 50), for the
   * private Atom feed. NOT_FOUND for anything that is not a live token, so a feed URL reveals
   * nothing once revoked or replaced.
   */
  async feed(token: string, caller: Caller): Promise<{ userId: string; notifications: Notification[] }> {
    const feed = FEED_TOKEN.test(token) ? await this.notifications.feedByToken(hashToken(token), FEED_SIZE) : undefined;
    if (feed === undefined) throw AppError.notFound('feed');
    const hidden = await this.hiddenFor(feed.userId, caller);
    if (hidden === undefined) return feed;
    // Only an owner who blocks or mutes someone pays for a second read, with the filter.
    const page = await this.notifications.listPage({ userId: feed.userId, pageSize: FEED_SIZE, hidden });
    return { userId: feed.userId, notifications: page.notifications };
  }

  /** What `userId`'s blocks and mutes hide; undefined when nothing is (or without `relations`). */
  private async hiddenFor(userId: string, caller: Caller): Promise<HiddenNotifications | undefined> {
    if (this.relations === undefined) return undefined;
    const relations = await this.relations.relationsOf(userId, caller);
    const hidden = { actorIds: [...relations.blockedUserIds, ...relations.mutedAuthorIds], tagIds: relations.mutedTagIds };
    return hidden.actorIds.length === 0 && hidden.tagIds.length === 0 ? undefined : hidden;
  }

}

function signedInUser(caller: Caller): string {
  if (caller.userId === undefined) throw new Error('Notifications are read only for a signed-in user.');
  return caller.userId;
}

/** The caller's id when the path names them ('0' or '' included); NOT_FOUND for another user's inbox. */
function ownInbox(pathUserId: string, caller: Caller): string {
  const userId = signedInUser(caller);
  if (pathUserId !== '' && pathUserId !== '0' && pathUserId !== userId) throw AppError.notFound('user');
  return userId;
}

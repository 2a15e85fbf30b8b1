import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayloadInit } from '@inkwell/events';
import { BlogPostSnapshotSchema } from '@inkwell/proto/blog';
import { BookshelfItemSnapshotSchema } from '@inkwell/proto/bookshelves';
import { NotificationKind, NotificationReason, type ListNotificationsResponse, type Notification } from '@inkwell/proto/messaging';
import { ChapterSnapshotSchema, StorySnapshotSchema } from '@inkwell/proto/stories';
import { createLogger } from '@inkwell/logging';
import { callCode, eventually, eventuallyValue } from '@inkwell/testing';
import { NotificationBulkLoadRepository } from '../src/repositories/notification-bulk-load.repository.js';
import { asUser, startNotificationStack, type NotificationStack } from './notifications.harness.js';

let stack: NotificationStack;

/** Every event carries a later date_modified than the one before, so copies always take it; a day ago, well inside the retention. */
let clock = Date.now() - 24 * 3600 * 1000;
const tick = () => new Date((clock += 1000));

/** Users are plain ids here: the messaging service never asks the users service about them. */
let nextId = 1000;
const newId = () => String(nextId++);

const followed = (followId: string, followerId: string, followedId: string): EventPayloadInit => ({ case: 'userFollowed', value: { followId, followerId, followedId } }) as EventPayloadInit;
const unfollowed = (followId: string, followerId: string, followedId: string): EventPayloadInit => ({ case: 'userUnfollowed', value: { followId, followerId, followedId } }) as EventPayloadInit;

/** The first publication of each story, which its snapshots keep (docs/api/stories.md). */
const firstPublished = new Map<string, Date>();

function story(kind: 'storyCreated' | 'storyUpdated' | 'storyDeleted', storyId: string, authorId: string, published: boolean, previousPublished = false): EventPayloadInit {
  const at = tick();
  if (published && !firstPublished.has(storyId)) firstPublished.set(storyId, at);
  const datePublished = firstPublished.get(storyId);
  const snapshot = create(StorySnapshotSchema, { storyId, authorId, published, dateModified: timestampFromDate(at), ...(datePublished ? { datePublished: timestampFromDate(datePublished) } : {}) });
  return { case: kind, value: kind === 'storyUpdated' ? { story: snapshot, previousPublished } : { story: snapshot } } as EventPayloadInit;
}

function chapter(kind: 'chapterCreated' | 'chapterUpdated' | 'chapterDeleted', chapterId: string, storyId: string, authorId: string, published: boolean, previousPublished: boolean, at: Date): EventPayloadInit {
  const snapshot = create(ChapterSnapshotSchema, { chapterId, storyId, authorId, published, dateModified: timestampFromDate(at) });
  return { case: kind, value: kind === 'chapterUpdated' ? { chapter: snapshot, previousPublished } : { chapter: snapshot } } as EventPayloadInit;
}

/** Sends a chapter event that happened now on the test clock (its occurred_at and date_modified). */
async function sendChapter(kind: 'chapterCreated' | 'chapterUpdated' | 'chapterDeleted', chapterId: string, storyId: string, authorId: string, published: boolean, previousPublished = false): Promise<void> {
  const at = tick();
  await stack.send('chapters', chapterId, chapter(kind, chapterId, storyId, authorId, published, previousPublished, at), { occurredAt: at });
}

function shelfItem(kind: 'bookshelfItemAdded' | 'bookshelfItemRemoved', itemId: string, ownerId: string, storyId: string): EventPayloadInit {
  return { case: kind, value: { item: create(BookshelfItemSnapshotSchema, { itemId, bookshelfId: '1', ownerId, storyId }) } } as EventPayloadInit;
}

const comment = (kind: 'commentCreated' | 'commentDeleted', commentId: string, storyId: string, authorId: string): EventPayloadInit => ({ case: kind, value: { commentId, storyId, authorId } }) as EventPayloadInit;
const messageSent = (messageId: string, senderId: string, recipientId: string): EventPayloadInit => ({ case: 'messageSent', value: { messageId, senderId, recipientId } }) as EventPayloadInit;

function blogPost(kind: 'blogPostCreated' | 'blogPostDeleted', blogPostId: string, authorId: string, sitePost = false): EventPayloadInit {
  return { case: kind, value: { blogPost: create(BlogPostSnapshotSchema, { blogPostId, authorId, sitePost }) } } as EventPayloadInit;
}

/** Everything sent so far is applied and every fan-out is done: the condition to await before asserting that nothing (more) happened. */
async function settled(): Promise<void> {
  await eventually(async () => (await stack.consumed()) && (await stack.fannedOut()), { timeoutMs: 20_000, what: 'the consumer and the fan-outs to finish' });
}

async function inbox(userId: string, init: { pageSize?: number; after?: string; read?: boolean; kinds?: NotificationKind[] } = {}): Promise<ListNotificationsResponse> {
  return stack.client.listNotifications(
    { userId, pageSize: init.pageSize ?? 100, after: init.after ?? '', filter: { kinds: init.kinds ?? [], ...(init.read === undefined ? {} : { read: init.read }) } },
    asUser(userId),
  );
}

/** A short description of a notification, for comparisons. */
const describeNotification = (n: Notification) => ({ kind: n.kind, actor: n.actorId, story: n.storyId, chapter: n.chapterId, comment: n.commentId, post: n.blogPostId, message: n.privateMessageId });

/** Waits until `userId` has `count` notifications matching `match`, and returns them. */
async function awaitNotifications(userId: string, match: (n: Notification) => boolean, count = 1): Promise<Notification[]> {
  const found = await eventuallyValue(
    async () => (await inbox(userId)).notifications.filter(match),
    (list) => list.length >= count,
    { timeoutMs: 20_000, what: `${count} notification(s) of user ${userId}` },
  );
  return found;
}

beforeAll(async () => {
  stack = await startNotificationStack('inkwell_test_messaging_notifications', 1_000);
});

afterAll(async () => {
  await stack?.stop();
});

/** An author with a published story and followers; returns their ids. */
async function publishedAuthor(followerCount: number): Promise<{ author: string; followers: string[]; storyId: string; chapterId: string }> {
  const author = newId();
  const followers = Array.from({ length: followerCount }, () => newId());
  for (const follower of followers) await stack.send('follows', newId(), followed(newId(), follower, author));
  // They followed before the story came out (the topics are read in no order between them).
  await settled();
  const storyId = newId();
  const chapterId = newId();
  await stack.send('stories', storyId, story('storyCreated', storyId, author, false));
  await sendChapter('chapterCreated', chapterId, storyId, author, true);
  await stack.send('stories', storyId, story('storyUpdated', storyId, author, true, false));
  return { author, followers, storyId, chapterId };
}

describe('the kinds and their triggers', () => {
  it('new_follower: the followed user hears of each follower once, however often they follow', async () => {
    const [ada, bob] = [newId(), newId()];
    await stack.send('follows', '1', followed('9001', bob, ada));
    const [notification] = await awaitNotifications(ada, (n) => n.kind === NotificationKind.NEW_FOLLOWER);
    expect(notification).toMatchObject({ kind: NotificationKind.NEW_FOLLOWER, actorId: bob, read: false, reasons: [] });
    await stack.send('follows', '1', unfollowed('9001', bob, ada));
    await stack.send('follows', '2', followed('9002', bob, ada));
    await settled();
    expect((await inbox(ada)).notifications.map(describeNotification)).toEqual([describeNotification(notification!)]);
    expect((await inbox(bob)).notifications).toEqual([]);
  });

  it('story_published: the author\'s followers, not the author, once when the story is published', async () => {
    const { author, followers, storyId } = await publishedAuthor(2);
    for (const follower of followers) {
      const [notification] = await awaitNotifications(follower, (n) => n.kind === NotificationKind.STORY_PUBLISHED);
      expect(notification).toMatchObject({ actorId: author, storyId });
      expect(notification!.chapterId).toBeUndefined();
    }
    // Unpublishing and publishing again announces nothing new.
    await stack.send('stories', storyId, story('storyUpdated', storyId, author, false, true));
    await stack.send('stories', storyId, story('storyUpdated', storyId, author, true, false));
    await settled();
    expect((await inbox(followers[0]!)).notifications).toHaveLength(1);
    // The chapter published while the story was a draft is announced by story_published alone.
    expect((await inbox(followers[0]!, { kinds: [NotificationKind.CHAPTER_PUBLISHED] })).notifications).toEqual([]);
    expect((await inbox(author, { kinds: [NotificationKind.STORY_PUBLISHED, NotificationKind.CHAPTER_PUBLISHED] })).notifications).toEqual([]);
  });

  it('chapter_published: followers and shelf readers once per chapter, a story on two shelves once, with the reasons', async () => {
    const { author, followers, storyId } = await publishedAuthor(2);
    const [both, onlyFollows] = followers as [string, string];
    const shelfReader = newId();
    // The reader has the story on two shelves; one follower also has it on a shelf.
    await stack.send('items', '1', shelfItem('bookshelfItemAdded', '8001', shelfReader, storyId));
    await stack.send('items', '2', shelfItem('bookshelfItemAdded', '8002', shelfReader, storyId));
    await stack.send('items', '3', shelfItem('bookshelfItemAdded', '8003', both, storyId));
    await settled();
    const chapterId = newId();
    await sendChapter('chapterCreated', chapterId, storyId, author, true);
    const isChapter = (n: Notification) => n.kind === NotificationKind.CHAPTER_PUBLISHED && n.chapterId === chapterId;
    const [toBoth] = await awaitNotifications(both, isChapter);
    const [toFollower] = await awaitNotifications(onlyFollows, isChapter);
    const readerCopies = await awaitNotifications(shelfReader, isChapter);
    expect(toBoth).toMatchObject({ actorId: author, storyId, chapterId, reasons: [NotificationReason.FOLLOWED_AUTHOR, NotificationReason.BOOKSHELF] });
    expect(toFollower!.reasons).toEqual([NotificationReason.FOLLOWED_AUTHOR]);
    await settled();
    expect((await inbox(shelfReader)).notifications.filter(isChapter)).toHaveLength(1);
    expect(readerCopies[0]!.reasons).toEqual([NotificationReason.BOOKSHELF]);
    expect((await inbox(author, { kinds: [NotificationKind.STORY_PUBLISHED, NotificationKind.CHAPTER_PUBLISHED] })).notifications).toEqual([]);

    // Off one shelf, still on the other: still a reader. Off both: no longer.
    await stack.send('items', '1', shelfItem('bookshelfItemRemoved', '8001', shelfReader, storyId));
    const second = newId();
    await sendChapter('chapterCreated', second, storyId, author, false);
    await sendChapter('chapterUpdated', second, storyId, author, true, false);
    await awaitNotifications(shelfReader, (n) => n.chapterId === second);
    await stack.send('items', '2', shelfItem('bookshelfItemRemoved', '8002', shelfReader, storyId));
    // Topics are not ordered against each other: the removal must be applied before the chapter is.
    await settled();
    const third = newId();
    await sendChapter('chapterCreated', third, storyId, author, true);
    await awaitNotifications(onlyFollows, (n) => n.chapterId === third);
    await settled();
    expect((await inbox(shelfReader)).notifications.filter((n) => n.chapterId === third)).toEqual([]);

    // Unpublishing a chapter and publishing it again announces it once.
    await sendChapter('chapterUpdated', third, storyId, author, false, true);
    await sendChapter('chapterUpdated', third, storyId, author, true, false);
    await settled();
    expect((await inbox(onlyFollows)).notifications.filter((n) => n.chapterId === third)).toHaveLength(1);
  });

  it('chapter_published: nothing for a chapter of a draft story', async () => {
    const author = newId();
    const follower = newId();
    await stack.send('follows', '1', followed(newId(), follower, author));
    const storyId = newId();
    const chapterId = newId();
    await stack.send('stories', storyId, story('storyCreated', storyId, author, false));
    await sendChapter('chapterCreated', chapterId, storyId, author, true);
    await awaitNotifications(author, (n) => n.kind === NotificationKind.NEW_FOLLOWER);
    await settled();
    expect((await inbox(follower)).notifications).toEqual([]);
  });

  it('chapter_published: a chapter published after its story, whose event comes before the story\'s, is announced once both are seen', async () => {
    const author = newId();
    const follower = newId();
    await stack.send('follows', newId(), followed(newId(), follower, author));
    await settled();
    const storyId = newId();
    const chapterId = newId();
    firstPublished.set(storyId, tick());
    await sendChapter('chapterCreated', chapterId, storyId, author, true);
    await settled();
    expect((await inbox(follower)).notifications).toEqual([]);
    await stack.send('stories', storyId, story('storyCreated', storyId, author, true));
    const [notification] = await awaitNotifications(follower, (n) => n.kind === NotificationKind.CHAPTER_PUBLISHED);
    expect(notification).toMatchObject({ chapterId, storyId, actorId: author });
    await stack.send('stories', storyId, story('storyUpdated', storyId, author, true, true));
    await settled();
    expect((await inbox(follower)).notifications.map((n) => n.kind).sort()).toEqual([NotificationKind.CHAPTER_PUBLISHED, NotificationKind.STORY_PUBLISHED]);
  });

  it('story_comment: the story\'s author hears of others\' comments, not their own, until the comment is deleted', async () => {
    const { author, storyId } = await publishedAuthor(0);
    const commenter = newId();
    const commentId = newId();
    await stack.send('comments', commentId, comment('commentCreated', commentId, storyId, commenter));
    await stack.send('comments', '1', comment('commentCreated', newId(), storyId, author));
    const [notification] = await awaitNotifications(author, (n) => n.kind === NotificationKind.STORY_COMMENT);
    expect(notification).toMatchObject({ actorId: commenter, storyId, commentId });
    await settled();
    expect((await inbox(author)).notifications).toHaveLength(1);
    await stack.send('comments', commentId, comment('commentDeleted', commentId, storyId, commenter));
    await settled();
    expect((await inbox(author, { kinds: [NotificationKind.STORY_PUBLISHED, NotificationKind.CHAPTER_PUBLISHED] })).notifications).toEqual([]);
  });

  it('private_message: the recipient, never a note to oneself', async () => {
    const [sender, recipient] = [newId(), newId()];
    const messageId = newId();
    await stack.send('messages', newId(), messageSent(newId(), sender, sender));
    await stack.send('messages', messageId, messageSent(messageId, sender, recipient));
    const [notification] = await awaitNotifications(recipient, (n) => n.kind === NotificationKind.PRIVATE_MESSAGE);
    expect(notification).toMatchObject({ actorId: sender, privateMessageId: messageId });
    await settled();
    expect((await inbox(sender)).notifications).toEqual([]);
  });

  it('blog_post: the author\'s followers, not for site posts, gone when the post is deleted', async () => {
    const author = newId();
    const follower = newId();
    await stack.send('follows', '1', followed(newId(), follower, author));
    const postId = newId();
    await stack.send('blog', newId(), blogPost('blogPostCreated', newId(), '0', true));
    await stack.send('blog', postId, blogPost('blogPostCreated', postId, author));
    const [notification] = await awaitNotifications(follower, (n) => n.kind === NotificationKind.BLOG_POST);
    expect(notification).toMatchObject({ actorId: author, blogPostId: postId });
    await settled();
    expect((await inbox(follower, { kinds: [NotificationKind.BLOG_POST] })).notifications).toHaveLength(1);
    await stack.send('blog', postId, blogPost('blogPostDeleted', postId, author));
    await settled();
    expect((await inbox(follower, { kinds: [NotificationKind.BLOG_POST] })).notifications).toEqual([]);
  });
});

describe('redelivery', () => {
  it('writes one notification for an event delivered twice, and for the same publication sent again under a new event id', async () => {
    const { author, followers, storyId } = await publishedAuthor(1);
    const follower = followers[0]!;
    await awaitNotifications(follower, (n) => n.kind === NotificationKind.STORY_PUBLISHED);
    const chapterId = newId();
    const at = tick();
    const event = chapter('chapterCreated', chapterId, storyId, author, true, false, at);
    const eventId = randomUUID();
    await stack.send('chapters', chapterId, event, { eventId, occurredAt: at });
    await stack.send('chapters', chapterId, event, { eventId, occurredAt: at });
    await stack.send('chapters', chapterId, event, { occurredAt: at });
    const messageId = newId();
    await stack.send('messages', messageId, messageSent(messageId, author, follower));
    await stack.send('messages', messageId, messageSent(messageId, author, follower));
    await awaitNotifications(follower, (n) => n.chapterId === chapterId);
    await settled();
    const kinds = (await inbox(follower)).notifications.map((n) => n.kind).sort();
    expect(kinds).toEqual([NotificationKind.CHAPTER_PUBLISHED, NotificationKind.STORY_PUBLISHED, NotificationKind.PRIVATE_MESSAGE].sort());
  });
});

describe('visibility', () => {
  it('hides the notifications of a story while it is unpublished, in lists and unread counts, and of a deleted chapter for good', async () => {
    const { author, followers, storyId } = await publishedAuthor(1);
    const follower = followers[0]!;
    const chapterId = newId();
    await sendChapter('chapterCreated', chapterId, storyId, author, true);
    await awaitNotifications(follower, (n) => n.storyId === storyId, 2);
    const messageId = newId();
    await stack.send('messages', messageId, messageSent(messageId, author, follower));
    await awaitNotifications(follower, (n) => n.kind === NotificationKind.PRIVATE_MESSAGE);
    expect((await inbox(follower)).unread).toBe(3);

    await stack.send('stories', storyId, story('storyUpdated', storyId, author, false, true));
    await eventually(async () => (await inbox(follower)).notifications.length === 1, { timeoutMs: 20_000, what: 'the story\'s notifications to disappear' });
    const hidden = await inbox(follower);
    expect(hidden.notifications[0]!.kind).toBe(NotificationKind.PRIVATE_MESSAGE);
    expect(hidden.unread).toBe(1);
    const storyNotification = (await stack.pool.query<{ id: string }>('SELECT id::text AS id FROM notifications WHERE user_id = $1 AND story_id IS NOT NULL LIMIT 1', [follower])).rows[0]!.id;
    expect(await callCode(stack.client.updateNotification({ id: storyNotification, read: true }, asUser(follower)))).toBe('NOT_FOUND');

    await stack.send('stories', storyId, story('storyUpdated', storyId, author, true, false));
    await eventually(async () => (await inbox(follower)).unread === 3, { timeoutMs: 20_000, what: 'the story\'s notifications to come back' });

    await sendChapter('chapterUpdated', chapterId, storyId, author, false, true);
    await eventually(async () => (await inbox(follower)).unread === 2, { timeoutMs: 20_000, what: 'the unpublished chapter\'s notification to disappear' });
    await sendChapter('chapterDeleted', chapterId, storyId, author, false);
    await settled();
    const { rows } = await stack.pool.query('SELECT 1 FROM notifications WHERE chapter_id = $1', [chapterId]);
    expect(rows).toEqual([]);

    await stack.send('stories', storyId, story('storyDeleted', storyId, author, true));
    await eventually(async () => (await inbox(follower)).unread === 1, { timeoutMs: 20_000, what: 'the deleted story\'s notification to disappear' });
  });

  it('shows nothing older than 90 days, and the purge deletes it', async () => {
    const user = newId();
    const insert = (daysAgo: number) =>
      stack.pool.query<{ id: string }>(
        `INSERT INTO notifications (user_id, kind, subject_id, actor_id, private_message_id, created_at)
         VALUES ($1, 5, $2, 1, $2, now() - make_interval(days => $3)) RETURNING id::text AS id`,
        [user, newId(), daysAgo],
      );
    const old = (await insert(91)).rows[0]!.id;
    const recent = (await insert(89)).rows[0]!.id;
    const listed = await inbox(user);
    expect(listed.notifications.map((n) => n.id)).toEqual([recent]);
    expect(listed.unread).toBe(1);
    expect(await stack.retention.purge()).toBeGreaterThanOrEqual(1);
    const { rows } = await stack.pool.query<{ id: string }>('SELECT id::text AS id FROM notifications WHERE user_id = $1', [user]);
    expect(rows.map((row) => row.id)).toEqual([recent]);
    expect(old).not.toBe(recent);
  });
});

describe('reading the inbox', () => {
  let owner: string;
  let ids: string[];

  /** Five private messages to the owner, a second apart, newest last. */
  beforeAll(async () => {
    owner = newId();
    const sender = newId();
    for (let i = 0; i < 5; i++) {
      const messageId = newId();
      await stack.send('messages', messageId, messageSent(messageId, sender, owner), { occurredAt: new Date(Date.now() - (5 - i) * 60_000) });
    }
    const found = await awaitNotifications(owner, () => true, 5);
    ids = found.map((n) => n.id);
  });

  it('lists newest first in cursor pages, with the unread count over all pages', async () => {
    const first = await inbox(owner, { pageSize: 2 });
    expect(first.notifications.map((n) => n.id)).toEqual(ids.slice(0, 2));
    expect(first.unread).toBe(5);
    const second = await inbox(owner, { pageSize: 2, after: first.nextAfter });
    const third = await inbox(owner, { pageSize: 2, after: second.nextAfter });
    expect([...second.notifications, ...third.notifications].map((n) => n.id)).toEqual(ids.slice(2));
    expect(third.nextAfter).toBe('');
    expect(BigInt(ids[0]!)).toBeGreaterThan(BigInt(ids[4]!));
    expect(await callCode(inbox(owner, { after: 'not-a-cursor' }))).toBe('INVALID_ARGUMENT');
  });

  it('marks one read and unread; NOT_FOUND for someone else\'s', async () => {
    const updated = await stack.client.updateNotification({ id: ids[4]!, read: true }, asUser(owner));
    expect(updated.notification!.read).toBe(true);
    expect(updated.unread).toBe(4);
    expect((await inbox(owner, { read: true })).notifications.map((n) => n.id)).toEqual([ids[4]]);
    expect((await inbox(owner, { read: false })).notifications).toHaveLength(4);
    expect(await callCode(stack.client.updateNotification({ id: ids[4]!, read: false }, asUser(newId())))).toBe('NOT_FOUND');
    expect((await stack.client.updateNotification({ id: ids[4]!, read: false }, asUser(owner))).unread).toBe(5);
  });

  it('marks read up to an id (it and every older one), then until a date', async () => {
    const upTo = await stack.client.markNotificationsRead({ userId: owner, upTo: { case: 'upToId', value: ids[3]! } }, asUser(owner));
    expect(upTo).toMatchObject({ marked: 2, unread: 3 });
    expect((await inbox(owner, { read: false })).notifications.map((n) => n.id)).toEqual(ids.slice(0, 3));

    const middle = (await inbox(owner)).notifications.find((n) => n.id === ids[1])!;
    const until = await stack.client.markNotificationsRead({ userId: owner, upTo: { case: 'until', value: middle.dateCreated! } }, asUser(owner));
    expect(until).toMatchObject({ marked: 2, unread: 1 });
    expect((await inbox(owner, { read: false })).notifications.map((n) => n.id)).toEqual([ids[0]]);
    const again = await stack.client.markNotificationsRead({ userId: owner, upTo: { case: 'until', value: timestampFromDate(new Date()) } }, asUser(owner));
    expect(again).toMatchObject({ marked: 1, unread: 0 });
  });

  it('refuses a request without up_to or until, duplicate kinds, and another user\'s inbox', async () => {
    expect(await callCode(stack.client.markNotificationsRead({ userId: owner }, asUser(owner)))).toBe('INVALID_ARGUMENT');
    expect(await callCode(inbox(owner, { kinds: [NotificationKind.BLOG_POST, NotificationKind.BLOG_POST] }))).toBe('INVALID_ARGUMENT');
    expect(await callCode(stack.client.listNotifications({ userId: owner }, asUser(newId())))).toBe('NOT_FOUND');
    expect(await callCode(stack.client.markNotificationsRead({ userId: owner, upTo: { case: 'upToId', value: '1' } }, asUser(newId())))).toBe('NOT_FOUND');
  });

  it('needs the read_notifications scope, a user, and the gateway as the caller', async () => {
    expect(await callCode(stack.client.listNotifications({ userId: owner }, asUser(owner, ['read_pms'])))).toBe('PERMISSION_DENIED');
    expect(await callCode(stack.otherIssuer.listNotifications({ userId: owner }, asUser(owner)))).toBe('PERMISSION_DENIED');
    expect(await callCode(stack.client.listNotifications({ userId: owner }, { caller: { requestId: 'app-only', appId: 'app', scopes: ['read_notifications'] } }))).toBe('UNAUTHENTICATED');
  });
});

describe('the private feed token', () => {
  it('is created, replaced (the old one stops at once) and revoked', async () => {
    const owner = newId();
    const messageId = newId();
    await stack.send('messages', messageId, messageSent(messageId, newId(), owner));
    await awaitNotifications(owner, () => true);
    const anonymous = { caller: { requestId: 'feed', scopes: [] } };

    const first = await stack.client.createFeedToken({ userId: owner }, asUser(owner));
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const feed = await stack.client.listNotificationsByFeedToken({ token: first.token }, anonymous);
    expect(feed.userId).toBe(owner);
    expect(feed.notifications.map((n) => n.privateMessageId)).toEqual([messageId]);
    const { rows } = await stack.pool.query<{ token_hash: Buffer }>('SELECT token_hash FROM feed_tokens WHERE user_id = $1', [owner]);
    expect(rows[0]!.token_hash.toString('base64url')).not.toBe(first.token);

    const second = await stack.client.createFeedToken({ userId: owner }, asUser(owner));
    expect(second.token).not.toBe(first.token);
    expect(await callCode(stack.client.listNotificationsByFeedToken({ token: first.token }, anonymous))).toBe('NOT_FOUND');
    expect((await stack.client.listNotificationsByFeedToken({ token: second.token }, anonymous)).userId).toBe(owner);

    expect((await stack.client.revokeFeedToken({ userId: owner }, asUser(owner))).revoked).toBe(true);
    expect(await callCode(stack.client.listNotificationsByFeedToken({ token: second.token }, anonymous))).toBe('NOT_FOUND');
    expect((await stack.client.revokeFeedToken({ userId: owner }, asUser(owner))).revoked).toBe(false);
    expect(await callCode(stack.client.listNotificationsByFeedToken({ token: 'short' }, anonymous))).toBe('NOT_FOUND');
    expect(await callCode(stack.otherIssuer.listNotificationsByFeedToken({ token: second.token }, anonymous))).toBe('PERMISSION_DENIED');
  });
});

describe('fan-out', () => {
  it('reaches every follower of a large audience through several chunks, each once', async () => {
    const author = newId();
    const count = 2_500;
    const first = 5_000_000;
    await new NotificationBulkLoadRepository(stack.pool).loadFollows(
      Array.from({ length: count }, (_, i) => ({ followId: first + i, followerId: first + i, followedId: author })),
    );
    const postId = newId();
    await stack.send('blog', postId, blogPost('blogPostCreated', postId, author));
    await stack.send('blog', postId, blogPost('blogPostCreated', postId, author));
    await settled();
    const { rows } = await stack.pool.query<{ count: string; users: string }>(
      'SELECT count(*) AS count, count(DISTINCT user_id) AS users FROM notifications WHERE kind = 6 AND subject_id = $1',
      [postId],
    );
    expect(rows[0]).toEqual({ count: String(count), users: String(count) });
    expect((await inbox(String(first + count - 1))).notifications.map((n) => n.blogPostId)).toEqual([postId]);
  });

  it('bulk-loads notifications by COPY, listed like any others once the indexes are rebuilt', async () => {
    await settled();
    const user = newId();
    const storyId = newId();
    const chapterId = newId();
    const bulk = new NotificationBulkLoadRepository(stack.pool);
    await bulk.loadStories([{ id: storyId, authorId: 1, published: true }]);
    await bulk.loadChapters([{ id: chapterId, storyId, published: true }]);
    const now = Date.now();
    const loaded = await bulk.loadNotifications(
      [
        { userId: user, kind: 'chapter_published', subjectId: chapterId, actorId: 1, storyId, chapterId, reasons: 2, createdAt: new Date(now - 2000), read: false },
        { userId: user, kind: 'new_follower', subjectId: 77, actorId: 77, createdAt: new Date(now - 1000), read: true },
      ],
      createLogger('bulk-load-test'),
    );
    expect(loaded.notifications).toBe(2);
    const listed = await inbox(user);
    expect(listed.notifications.map((n) => [n.kind, n.read, n.reasons])).toEqual([
      [NotificationKind.NEW_FOLLOWER, true, []],
      [NotificationKind.CHAPTER_PUBLISHED, false, [NotificationReason.BOOKSHELF]],
    ]);
    expect(listed.unread).toBe(1);
    const { rows } = await stack.pool.query<{ count: string }>("SELECT count(*) AS count FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'notifications'");
    expect(Number(rows[0]!.count)).toBe(5);
  });
});

import { describe, expect, it } from 'vitest';
import type { StoryChange } from '../domain/notification-event.js';
import { MemoryNotificationEventStore } from '../testing/memory.repositories.js';
import { NotificationEventService } from './notification-event.service.js';

const at = new Date('2026-02-01T00:00:00Z');
const story = (overrides: Partial<StoryChange> = {}): StoryChange => ({ storyId: '7', authorId: '3', published: true, deleted: false, version: at, becamePublished: true, ...overrides });

function setUp() {
  const store = new MemoryNotificationEventStore();
  return { store, events: new NotificationEventService(store) };
}

describe('NotificationEventService', () => {
  it('notifies the followed user of a follower, never a user following themself', async () => {
    const { store, events } = setUp();
    await events.apply({ type: 'followed', followId: '1', followerId: '2', followedId: '3', occurredAt: at });
    await events.apply({ type: 'followed', followId: '2', followerId: '4', followedId: '4', occurredAt: at });
    expect([...store.notifications.values()]).toEqual([{ userId: '3', kind: 'new_follower', subjectId: '2', actorId: '2', occurredAt: at }]);
    expect(store.follows.size).toBe(2);
  });

  it('queues story_published when a story becomes published, and the chapters due when it is published', async () => {
    const { store, events } = setUp();
    store.dueChapters = [{ chapterId: '11', authorId: '3', publishedAt: at }];
    await events.apply({ type: 'story', story: story(), occurredAt: at });
    expect([...store.fanouts.values()].map((fanout) => `${fanout.kind}:${fanout.subjectId}`)).toEqual(['story_published:7', 'chapter_published:11']);
  });

  it('queues nothing for a story that is not published, or was already', async () => {
    const { store, events } = setUp();
    await events.apply({ type: 'story', story: story({ published: false, becamePublished: false }), occurredAt: at });
    await events.apply({ type: 'story', story: story({ becamePublished: false }), occurredAt: at });
    expect(store.fanouts.size).toBe(0);
  });

  it('removes the notifications of a deleted chapter, comment or blog post', async () => {
    const { store, events } = setUp();
    await events.apply({ type: 'chapter', chapter: { chapterId: '11', storyId: '7', authorId: '3', published: false, deleted: true, version: at, becamePublished: false }, occurredAt: at });
    await events.apply({ type: 'comment_deleted', commentId: '9' });
    await events.apply({ type: 'blog_post_deleted', blogPostId: '6' });
    expect(store.removed).toEqual(['chapter_published:11', 'story_comment:9', 'blog_post:6']);
  });

  it('notifies a story\'s author of another user\'s comment only, and a recipient of another user\'s message only', async () => {
    const { store, events } = setUp();
    await events.apply({ type: 'story', story: story(), occurredAt: at });
    await events.apply({ type: 'comment_created', commentId: '9', storyId: '7', commenterId: '3', occurredAt: at });
    await events.apply({ type: 'comment_created', commentId: '10', storyId: '7', commenterId: '5', occurredAt: at });
    await events.apply({ type: 'comment_created', commentId: '12', storyId: '404', commenterId: '5', occurredAt: at });
    await events.apply({ type: 'message_sent', messageId: '8', senderId: '5', recipientId: '5', occurredAt: at });
    await events.apply({ type: 'message_sent', messageId: '9', senderId: '5', recipientId: '3', occurredAt: at });
    expect([...store.notifications.values()].map((n) => `${n.kind}:${n.subjectId}->${n.userId}`)).toEqual(['story_comment:10->3', 'private_message:9->3']);
  });

  it('queues a blog post\'s fan-out for user posts, not site posts', async () => {
    const { store, events } = setUp();
    await events.apply({ type: 'blog_post_created', blogPostId: '6', authorId: '0', sitePost: true, occurredAt: at });
    await events.apply({ type: 'blog_post_created', blogPostId: '7', authorId: '3', sitePost: false, occurredAt: at });
    expect([...store.fanouts.keys()]).toEqual(['blog_post:7']);
  });
});

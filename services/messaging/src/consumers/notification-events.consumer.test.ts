import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { BlogPostSnapshotSchema } from '@inkwell/proto/blog';
import { BookshelfItemSnapshotSchema } from '@inkwell/proto/bookshelves';
import { EventEnvelopeSchema, type EventEnvelope } from '@inkwell/proto/events';
import { ChapterSnapshotSchema, StorySnapshotSchema } from '@inkwell/proto/stories';
import { notificationEventOf } from './notification-events.consumer.js';

const occurred = new Date('2026-03-01T10:00:00Z');
const modified = new Date('2026-03-01T09:59:00Z');

function envelope(payload: EventEnvelope['payload']): EventEnvelope {
  return create(EventEnvelopeSchema, { eventId: '00000000-0000-4000-8000-000000000001', occurredAt: timestampFromDate(occurred), payload });
}

describe('notificationEventOf', () => {
  it('publishes a story when StoryUpdated turns it published, not when it was already', () => {
    const story = create(StorySnapshotSchema, { storyId: '7', authorId: '3', published: true, dateModified: timestampFromDate(modified), datePublished: timestampFromDate(modified), tagIds: ['g:3'] });
    expect(notificationEventOf(envelope({ case: 'storyUpdated', value: { story, previousPublished: false } as never }))).toEqual({
      type: 'story',
      story: { storyId: '7', authorId: '3', published: true, deleted: false, version: modified, becamePublished: true, datePublished: modified, tagIds: ['g:3'] },
      occurredAt: occurred,
    });
    const again = notificationEventOf(envelope({ case: 'storyUpdated', value: { story, previousPublished: true } as never }));
    expect(again?.type === 'story' && again.story.becamePublished).toBe(false);
    const deleted = notificationEventOf(envelope({ case: 'storyDeleted', value: { story } as never }));
    expect(deleted?.type === 'story' && deleted.story).toMatchObject({ deleted: true, becamePublished: false });
  });

  it('publishes a chapter when created published or updated from unpublished, with when', () => {
    const chapter = create(ChapterSnapshotSchema, { chapterId: '11', storyId: '7', authorId: '3', published: true, dateModified: timestampFromDate(modified) });
    expect(notificationEventOf(envelope({ case: 'chapterCreated', value: { chapter } as never }))).toEqual({
      type: 'chapter',
      chapter: { chapterId: '11', storyId: '7', authorId: '3', published: true, deleted: false, version: modified, becamePublished: true, publishedAt: occurred },
      occurredAt: occurred,
    });
    const edited = notificationEventOf(envelope({ case: 'chapterUpdated', value: { chapter, previousPublished: true } as never }));
    expect(edited?.type === 'chapter' && edited.chapter.becamePublished).toBe(false);
    const gone = notificationEventOf(envelope({ case: 'chapterDeleted', value: { chapter } as never }));
    expect(gone?.type === 'chapter' && gone.chapter).toMatchObject({ deleted: true, becamePublished: false });
  });

  it('reads follows, shelf items, comments, messages and blog posts', () => {
    expect(notificationEventOf(envelope({ case: 'userFollowed', value: { followId: '1', followerId: '2', followedId: '3' } as never }))).toEqual({
      type: 'followed', followId: '1', followerId: '2', followedId: '3', occurredAt: occurred,
    });
    expect(notificationEventOf(envelope({ case: 'userUnfollowed', value: { followId: '1', followerId: '2', followedId: '3' } as never }))).toEqual({
      type: 'unfollowed', followId: '1', followerId: '2', followedId: '3',
    });
    const item = create(BookshelfItemSnapshotSchema, { itemId: '5', bookshelfId: '4', ownerId: '2', storyId: '7' });
    expect(notificationEventOf(envelope({ case: 'bookshelfItemRemoved', value: { item } as never }))).toEqual({ type: 'shelf_item_removed', itemId: '5', ownerId: '2', storyId: '7' });
    expect(notificationEventOf(envelope({ case: 'commentCreated', value: { commentId: '9', storyId: '7', authorId: '2' } as never }))).toEqual({
      type: 'comment_created', commentId: '9', storyId: '7', commenterId: '2', occurredAt: occurred,
    });
    expect(notificationEventOf(envelope({ case: 'messageSent', value: { messageId: '8', senderId: '2', recipientId: '3' } as never }))).toEqual({
      type: 'message_sent', messageId: '8', senderId: '2', recipientId: '3', occurredAt: occurred,
    });
    const post = create(BlogPostSnapshotSchema, { blogPostId: '6', authorId: '0', sitePost: true });
    expect(notificationEventOf(envelope({ case: 'blogPostCreated', value: { blogPost: post } as never }))).toEqual({
      type: 'blog_post_created', blogPostId: '6', authorId: '0', sitePost: true, occurredAt: occurred,
    });
  });

  it('ignores events that change nothing here, and events without ids', () => {
    expect(notificationEventOf(envelope({ case: 'messageReadChanged', value: { messageId: '8', senderId: '2', recipientId: '3', read: true } as never }))).toBeUndefined();
    expect(notificationEventOf(envelope({ case: 'storyViewed', value: { storyId: '7', chapterId: '1' } as never }))).toBeUndefined();
    expect(notificationEventOf(envelope({ case: 'userFollowed', value: { followId: '0', followerId: '2', followedId: '3' } as never }))).toBeUndefined();
    expect(notificationEventOf(envelope({ case: 'chapterCreated', value: {} as never }))).toBeUndefined();
  });
});

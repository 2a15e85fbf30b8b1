import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { createServiceConsumer, occurredAtOf, storyStateOf, type ConsumerWiring, type EventConsumer, type ServiceEventHandler } from '@inkwell/events';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import type { NotificationEvent } from '../domain/notification-event.js';
import { NotificationEventRepository } from '../repositories/notification-event.repository.js';
import { NotificationEventService } from '../services/notification-event.service.js';

/** The topics notifications are made from (docs/api/updates.md, "Notification kinds and visibility"). */
export const NOTIFICATION_TOPICS = [
  Topics.usersFollow,
  Topics.storiesStory,
  Topics.storiesChapter,
  Topics.storiesComment,
  Topics.bookshelvesItem,
  Topics.blogPost,
  Topics.messagingMessage,
] as const;

/** Options of the notifications consumer (group `messaging-notifications`, NOTIFICATION_TOPICS by default). */
export interface NotificationEventsConsumerOptions extends ConsumerWiring {
  /** A pool of the messaging schema. */
  pool: pg.Pool;
}

const isId = (id: string): boolean => /^[1-9][0-9]{0,18}$/.test(id);

function dateOr(timestamp: Timestamp | undefined, fallback: Date): Date {
  return timestamp === undefined ? fallback : timestampDate(timestamp);
}

/**
 * What an event means for notifications, or undefined for the events that change nothing here
 * (views, ratings, stats, shelves' own changes, read marks, user profiles) and for events whose
 * ids are missing.
 */
export function notificationEventOf(envelope: EventEnvelope): NotificationEvent | undefined {
  const occurredAt = occurredAtOf(envelope);
  const story = storyStateOf(envelope);
  const { payload } = envelope;
  if (story !== undefined && (payload.case === 'storyCreated' || payload.case === 'storyUpdated' || payload.case === 'storyDeleted')) {
    const wasPublished = payload.case === 'storyUpdated' ? payload.value.previousPublished : false;
    const becamePublished = payload.case !== 'storyDeleted' && story.published && !wasPublished;
    const datePublished = payload.value.story?.datePublished;
    const tagIds = payload.value.story?.tagIds;
    return {
      type: 'story',
      story: { ...story, becamePublished, ...(datePublished === undefined ? {} : { datePublished: timestampDate(datePublished) }), ...(tagIds === undefined ? {} : { tagIds }) },
      occurredAt,
    };
  }
  switch (payload.case) {
    case 'userFollowed':
    case 'userUnfollowed': {
      const { followId, followerId, followedId } = payload.value;
      if (!isId(followId) || !isId(followerId) || !isId(followedId)) return undefined;
      return payload.case === 'userFollowed' ? { type: 'followed', followId, followerId, followedId, occurredAt } : { type: 'unfollowed', followId, followerId, followedId };
    }
    case 'bookshelfItemAdded':
    case 'bookshelfItemRemoved': {
      const item = payload.value.item;
      if (item === undefined || !isId(item.itemId) || !isId(item.ownerId) || !isId(item.storyId)) return undefined;
      const type = payload.case === 'bookshelfItemAdded' ? 'shelf_item_added' : 'shelf_item_removed';
      return { type, itemId: item.itemId, ownerId: item.ownerId, storyId: item.storyId };
    }
    case 'chapterCreated':
    case 'chapterUpdated':
    case 'chapterDeleted': {
      const chapter = payload.value.chapter;
      if (chapter === undefined || !isId(chapter.chapterId) || !isId(chapter.storyId) || !isId(chapter.authorId)) return undefined;
      const deleted = payload.case === 'chapterDeleted';
      const wasPublished = payload.case === 'chapterUpdated' ? payload.value.previousPublished : false;
      const becamePublished = !deleted && chapter.published && !wasPublished;
      return {
        type: 'chapter',
        chapter: {
          chapterId: chapter.chapterId,
          storyId: chapter.storyId,
          authorId: chapter.authorId,
          published: chapter.published,
          deleted,
          version: dateOr(chapter.dateModified, occurredAt),
          becamePublished,
          ...(becamePublished ? { publishedAt: occurredAt } : {}),
        },
        occurredAt,
      };
    }
    case 'commentCreated': {
      const { commentId, storyId, authorId } = payload.value;
      if (!isId(commentId) || !isId(storyId) || !isId(authorId)) return undefined;
      return { type: 'comment_created', commentId, storyId, commenterId: authorId, occurredAt };
    }
    case 'commentDeleted':
      return isId(payload.value.commentId) ? { type: 'comment_deleted', commentId: payload.value.commentId } : undefined;
    case 'messageSent': {
      const { messageId, senderId, recipientId } = payload.value;
      if (!isId(messageId) || !isId(senderId) || !isId(recipientId)) return undefined;
      return { type: 'message_sent', messageId, senderId, recipientId, occurredAt };
    }
    case 'blogPostCreated': {
      const post = payload.value.blogPost;
      if (post === undefined || !isId(post.blogPostId)) return undefined;
      return { type: 'blog_post_created', blogPostId: post.blogPostId, authorId: post.authorId, sitePost: post.sitePost, occurredAt };
    }
    case 'blogPostDeleted': {
      const post = payload.value.blogPost;
      return post !== undefined && isId(post.blogPostId) ? { type: 'blog_post_deleted', blogPostId: post.blogPostId } : undefined;
    }
    default:
      return undefined;
  }
}

/** Applies one event in the consumer's transaction (so exactly once per event id). */
export const handleNotificationEvent: ServiceEventHandler = async (envelope, client) => {
  const event = notificationEventOf(envelope);
  if (event === undefined) return;
  await new NotificationEventService(new NotificationEventRepository(client)).apply(event);
};

/**
 * The consumer that keeps the notifications' local copies and writes notifications as the other
 * services' events arrive (docs/api/updates.md, "Fan-out model"). One group reads every topic, so
 * each event is applied once, in its partition's order.
 */
export function createNotificationEventsConsumer(options: NotificationEventsConsumerOptions): EventConsumer {
  return createServiceConsumer(options, { groupId: 'messaging-notifications', topics: NOTIFICATION_TOPICS }, handleNotificationEvent);
}

import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AppError } from '@inkwell/errors';
import {
  NotificationKind as ProtoKind,
  NotificationReason as ProtoReason,
  NotificationSchema,
  type ListNotificationsRequest,
  type MarkNotificationsReadRequest,
  type Notification as ProtoNotification,
} from '@inkwell/proto/messaging';
import type { Notification, NotificationKind, NotificationReason, ReadMark } from '../domain/notification.js';
import type { InboxRequest } from '../services/notification.service.js';
import { boundDate } from './private-message.mappers.js';

const PROTO_KINDS: Readonly<Record<NotificationKind, ProtoKind>> = {
  chapter_published: ProtoKind.CHAPTER_PUBLISHED,
  story_published: ProtoKind.STORY_PUBLISHED,
  new_follower: ProtoKind.NEW_FOLLOWER,
  story_comment: ProtoKind.STORY_COMMENT,
  private_message: ProtoKind.PRIVATE_MESSAGE,
  blog_post: ProtoKind.BLOG_POST,
};

const PROTO_REASONS: Readonly<Record<NotificationReason, ProtoReason>> = {
  followed_author: ProtoReason.FOLLOWED_AUTHOR,
  bookshelf: ProtoReason.BOOKSHELF,
};

/** The domain kind of a proto kind; undefined for UNSPECIFIED (the request rules refuse it). */
export function toDomainKind(kind: ProtoKind): NotificationKind | undefined {
  return (Object.keys(PROTO_KINDS) as NotificationKind[]).find((name) => PROTO_KINDS[name] === kind);
}

/** Domain notification → proto Notification; subject ids only where set. */
export function toProtoNotification(notification: Notification): ProtoNotification {
  return create(NotificationSchema, {
    id: notification.id,
    kind: PROTO_KINDS[notification.kind],
    read: notification.read,
    dateCreated: timestampFromDate(notification.dateCreated),
    actorId: notification.actorId,
    reasons: notification.reasons.map((reason) => PROTO_REASONS[reason]),
    ...(notification.storyId === undefined ? {} : { storyId: notification.storyId }),
    ...(notification.chapterId === undefined ? {} : { chapterId: notification.chapterId }),
    ...(notification.commentId === undefined ? {} : { commentId: notification.commentId }),
    ...(notification.blogPostId === undefined ? {} : { blogPostId: notification.blogPostId }),
    ...(notification.privateMessageId === undefined ? {} : { privateMessageId: notification.privateMessageId }),
  });
}

/** ListNotificationsRequest → the inbox request; unset filters stay unset. */
export function toInboxRequest(request: ListNotificationsRequest): InboxRequest {
  const inbox: InboxRequest = { userId: request.userId, pageSize: request.pageSize, after: request.after };
  const filter = request.filter;
  if (filter?.read !== undefined) inbox.read = filter.read;
  if (filter !== undefined && filter.kinds.length > 0) {
    inbox.kinds = filter.kinds.map((kind) => {
      const name = toDomainKind(kind);
      if (name === undefined) throw AppError.badParameter('filter[kind]', 'Unknown notification kind.');
      return name;
    });
  }
  return inbox;
}

/** The read mark of a MarkNotificationsReadRequest (the request rules require one); an instant in whole milliseconds, rounded down. */
export function toReadMark(request: MarkNotificationsReadRequest): ReadMark {
  const upTo = request.upTo;
  switch (upTo.case) {
    case 'upToId':
      return { upToId: upTo.value };
    case 'until':
      return { until: boundDate(upTo.value, 'max') };
    default:
      throw AppError.validation('/data/attributes', 'Give exactly one of up_to and until.');
  }
}

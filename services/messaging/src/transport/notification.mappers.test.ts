import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { ListNotificationsRequestSchema, MarkNotificationsReadRequestSchema, NotificationKind, NotificationReason } from '@inkwell/proto/messaging';
import { toInboxRequest, toProtoNotification, toReadMark } from './notification.mappers.js';

describe('notification mappers', () => {
  it('sets only the subject ids a notification has, and its reasons', () => {
    const proto = toProtoNotification({
      id: '5', userId: '1', kind: 'chapter_published', read: false, dateCreated: new Date('2026-01-02T03:04:05.678Z'), actorId: '2',
      storyId: '7', chapterId: '11', reasons: ['followed_author', 'bookshelf'],
    });
    expect(proto).toMatchObject({ id: '5', kind: NotificationKind.CHAPTER_PUBLISHED, actorId: '2', storyId: '7', chapterId: '11', reasons: [NotificationReason.FOLLOWED_AUTHOR, NotificationReason.BOOKSHELF] });
    expect(proto.commentId).toBeUndefined();
    expect(proto.blogPostId).toBeUndefined();
    expect(proto.privateMessageId).toBeUndefined();
    expect(proto.dateCreated).toMatchObject({ nanos: 678_000_000 });
  });

  it('turns the list filters into an inbox request, leaving unset ones unset', () => {
    const request = create(ListNotificationsRequestSchema, { userId: '1', pageSize: 5, after: 'n9', filter: { read: false, kinds: [NotificationKind.BLOG_POST, NotificationKind.NEW_FOLLOWER] } });
    expect(toInboxRequest(request)).toEqual({ userId: '1', pageSize: 5, after: 'n9', read: false, kinds: ['blog_post', 'new_follower'] });
    expect(toInboxRequest(create(ListNotificationsRequestSchema, { userId: '1' }))).toEqual({ userId: '1', pageSize: 0, after: '' });
  });

  it('reads the read mark: an id, or an instant rounded down to the millisecond', () => {
    expect(toReadMark(create(MarkNotificationsReadRequestSchema, { upTo: { case: 'upToId', value: '42' } }))).toEqual({ upToId: '42' });
    const until = toReadMark(create(MarkNotificationsReadRequestSchema, { upTo: { case: 'until', value: { seconds: 100n, nanos: 999_999_999 } } }));
    expect(until).toEqual({ until: new Date(100_999) });
    expect(() => toReadMark(create(MarkNotificationsReadRequestSchema, {}))).toThrow();
  });
});

import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { CreateFeedTokenResponseSchema, NotificationKind, NotificationReason, NotificationSchema } from '@inkwell/proto/messaging';
import { describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import { parseCreateBody, parseListQuery } from '../jsonapi/index.js';
import {
  markReadRequest,
  NOTIFICATION_KINDS,
  NOTIFICATION_LIST,
  NOTIFICATION_READ_MARKER_WRITE,
  notificationFeedOf,
  notificationListRequest,
  toNotificationResource,
} from './notification.resource.js';

const links = createApiLinks('https://inkwell.example/');
const api = 'https://inkwell.example/api/v1';
const parse = (query: string) => parseListQuery(NOTIFICATION_LIST, new URLSearchParams(query));

function refusal(run: () => unknown): { parameter?: string; pointer?: string; reason?: string } {
  try {
    run();
  } catch (error) {
    return (error as { details: { parameter?: string; pointer?: string; reason?: string }[] }).details[0] ?? {};
  }
  throw new Error('accepted');
}

describe('toNotificationResource', () => {
  it('maps a chapter notification with its reasons, its three relationships and their related links', () => {
    const notification = create(NotificationSchema, {
      id: '913',
      kind: NotificationKind.CHAPTER_PUBLISHED,
      read: false,
      dateCreated: timestampFromDate(new Date('2026-11-21T19:00:00Z')),
      actorId: '12',
      storyId: '7',
      chapterId: '88',
      reasons: [NotificationReason.FOLLOWED_AUTHOR, NotificationReason.BOOKSHELF],
    });
    expect(toNotificationResource(notification, links)).toEqual({
      id: '913',
      type: 'notification',
      attributes: { kind: 'chapter_published', read: false, date_created: '2026-11-21T19:00:00Z', reasons: ['followed_author', 'bookshelf'] },
      relationships: {
        actor: { data: { type: 'user', id: '12' }, links: { related: `${api}/users/12` } },
        story: { data: { type: 'story', id: '7' }, links: { related: `${api}/stories/7` } },
        chapter: { data: { type: 'chapter', id: '88' }, links: { related: `${api}/chapters/88` } },
      },
      links: { self: `${api}/notifications/913` },
    });
  });

  it('leaves out the relationships a kind has not, and gives a comment linkage only (comments have no URL)', () => {
    const comment = toNotificationResource(create(NotificationSchema, { id: '5', kind: NotificationKind.STORY_COMMENT, read: true, actorId: '3', storyId: '7', commentId: '41' }), links);
    expect(comment.attributes).toEqual({ kind: 'story_comment', read: true, date_created: null, reasons: [] });
    expect(comment.relationships).toEqual({
      actor: { data: { type: 'user', id: '3' }, links: { related: `${api}/users/3` } },
      story: { data: { type: 'story', id: '7' }, links: { related: `${api}/stories/7` } },
      comment: { data: { type: 'comment', id: '41' } },
    });
    const message = toNotificationResource(create(NotificationSchema, { id: '6', kind: NotificationKind.PRIVATE_MESSAGE, actorId: '3', privateMessageId: '77' }), links);
    expect(Object.keys(message.relationships ?? {})).toEqual(['actor', 'private_message']);
    expect(message.relationships?.private_message?.links).toEqual({ related: `${api}/private-messages/77` });
    const post = toNotificationResource(create(NotificationSchema, { id: '8', kind: NotificationKind.BLOG_POST, actorId: '3', blogPostId: '9' }), links);
    expect(post.relationships?.blog_post).toEqual({ data: { type: 'blog_post', id: '9' }, links: { related: `${api}/blog-posts/9` } });
  });
});

describe('NOTIFICATION_LIST', () => {
  it('defaults to a first page of 20 without filters or sort', () => {
    const query = parse('');
    expect(query.page).toEqual({ kind: 'cursor', size: 20, cursor: undefined });
    expect(query.filters).toEqual({});
    expect(notificationListRequest('4', query)).toEqual({ userId: '4', filter: { read: undefined, kinds: [] } });
  });

  it('takes kinds in any order once each, in the order of the kinds, and the read state', () => {
    const query = parse('filter[kind]=blog_post,new_follower,blog_post&filter[read]=false');
    expect(query.filters).toEqual({ kind: ['new_follower', 'blog_post'], read: false });
    expect(notificationListRequest('4', query).filter).toEqual({ read: false, kinds: [NotificationKind.NEW_FOLLOWER, NotificationKind.BLOG_POST] });
    expect(parse(`filter[kind]=${[...NOTIFICATION_KINDS].reverse().join(',')}`).filters.kind).toEqual(NOTIFICATION_KINDS);
  });

  it('refuses unknown kinds, empty items, sorts and pages over 100, naming the parameter', () => {
    expect(refusal(() => parse('filter[kind]=story_published,likes'))).toMatchObject({ reason: 'invalid_parameter', parameter: 'filter[kind]' });
    expect(refusal(() => parse('filter[kind]=blog_post,'))).toMatchObject({ reason: 'invalid_parameter', parameter: 'filter[kind]' });
    expect(refusal(() => parse('filter[kind]='))).toMatchObject({ reason: 'invalid_parameter', parameter: 'filter[kind]' });
    expect(refusal(() => parse('filter[read]=yes'))).toMatchObject({ reason: 'invalid_parameter', parameter: 'filter[read]' });
    expect(refusal(() => parse('sort=-date_created'))).toMatchObject({ reason: 'invalid_sort' });
    expect(refusal(() => parse('page[size]=101'))).toMatchObject({ reason: 'invalid_parameter', parameter: 'page[size]' });
    expect(parse('page[size]=100').page.size).toBe(100);
  });
});

describe('markReadRequest', () => {
  const body = (attributes: Record<string, unknown>) => parseCreateBody(NOTIFICATION_READ_MARKER_WRITE, { data: { type: 'notification_read_marker', attributes } });

  it('sends up_to as the id, until as the instant (a date alone: the end of its UTC day)', () => {
    expect(markReadRequest('4', body({ up_to: '913' }))).toEqual({ userId: '4', upTo: { case: 'upToId', value: '913' } });
    expect(markReadRequest('4', body({ until: '2026-11-21T19:00:00.5Z' }))).toEqual({ userId: '4', upTo: { case: 'until', value: { seconds: BigInt(Date.parse('2026-11-21T19:00:00Z') / 1000), nanos: 500_000_000 } } });
    expect(markReadRequest('4', body({ until: '2026-11-21' })).upTo).toEqual({ case: 'until', value: { seconds: BigInt(Date.parse('2026-11-22T00:00:00Z') / 1000) - 1n, nanos: 999_999_999 } });
  });

  it('sends neither for neither or both, so that the service refuses them with its one rule', () => {
    expect(markReadRequest('4', body({}))).toEqual({ userId: '4' });
    expect(markReadRequest('4', body({ up_to: '1', until: '2026-11-21' }))).toEqual({ userId: '4' });
  });

  it('refuses an up_to that is no id and an until that is no date, at their pointers', () => {
    expect(refusal(() => body({ up_to: 913 }))).toMatchObject({ reason: 'validation_failed', pointer: '/data/attributes/up_to' });
    expect(refusal(() => body({ up_to: '0' }))).toMatchObject({ reason: 'validation_failed', pointer: '/data/attributes/up_to' });
    expect(refusal(() => body({ until: 'yesterday' }))).toMatchObject({ reason: 'validation_failed', pointer: '/data/attributes/until' });
  });
});

describe('notificationFeedOf', () => {
  it('is the private feed URL under the public base, with the user of the path as id and no self link', () => {
    const feed = notificationFeedOf(create(CreateFeedTokenResponseSchema, { token: 'abc_DEF-123', dateCreated: timestampFromDate(new Date('2026-11-21T19:00:00Z')) }), links, { id: '4' });
    expect(feed).toEqual({ id: '4', type: 'notification_feed', attributes: { url: 'https://inkwell.example/feeds/notifications/abc_DEF-123.atom', date_created: '2026-11-21T19:00:00Z' } });
  });
});

import type { MessageInitShape } from '@bufbuild/protobuf';
import {
  ListNotificationsRequestSchema,
  NotificationFilterSchema,
  NotificationKindSchema,
  NotificationReasonSchema,
  NotificationSchema,
  type CreateFeedTokenResponse,
  type ListNotificationsResponse,
  type MarkNotificationsReadRequestSchema,
  type MarkNotificationsReadResponse,
  type Notification,
} from '@inkwell/proto/messaging';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type JsonValue, type Relationship, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, cursorPagination, defineDocumentSpec, defineListSpec, defineResourceSchema, defineWriteSpec, filters, writeValues } from '../jsonapi/index.js';
import type { BodyOf, ListQueryOf } from '../routing/route-kinds.js';
import { CHAPTER_CONTENT_FIELDS, CHAPTER_SCHEMA } from './chapter.resource.js';
import { protoEnumNames } from './proto-enum.js';
import { protoResourceMapper } from './proto-resource.js';
import { STORY_SCHEMA } from './story.resource.js';
import { timestampToApiDate } from './timestamps.js';
import { USER_SCHEMA } from './user.resource.js';

/** The JSON:API type of notifications. */
export const NOTIFICATION_TYPE = 'notification';

const KIND = protoEnumNames(NotificationKindSchema);

/**
 * The kinds of notification (docs/api/updates.md, "Notification kinds and visibility"):
 * chapter_published, story_published, new_follower, story_comment, private_message, blog_post.
 */
export const NOTIFICATION_KINDS = KIND.names;

/**
 * The API path of each relationship's resource, by relationship: its `links.related`. A comment
 * has no GET-by-id endpoint (docs/api/foundation.md, "Documents"), so `comment` carries linkage only.
 */
const RELATED_PATHS: Readonly<Record<string, string | undefined>> = {
  actor: '/users/',
  story: '/stories/',
  chapter: '/chapters/',
  blog_post: '/blog-posts/',
  private_message: '/private-messages/',
};

/**
 * The notification type (docs/api/updates.md, "Notifications"): what happened (`kind`), whether the
 * owner has read it (`read`, the only writable member), when it was created, why a chapter reached
 * the owner (`reasons`), and the resources it is about, each only when its kind has one.
 */
export const NOTIFICATION_SCHEMA = defineResourceSchema({
  type: NOTIFICATION_TYPE,
  description: 'Something that happened that concerns you: a chapter or story published, a new follower, a comment, a message, a blog post.',
  attributes: {
    kind: at.enumeration(NOTIFICATION_KINDS),
    read: at.boolean('Whether you have read it.'),
    date_created: at.dateTime(undefined, { nullable: true }),
    reasons: { ...at.strings('chapter_published only: every reason it reached you (`followed_author`, `bookshelf`); empty for other kinds.'), items: { type: 'string', enum: [...protoEnumNames(NotificationReasonSchema).names] } },
  },
  relationships: {
    actor: { type: 'user', many: false, relatedLink: true },
    story: { type: 'story', many: false, relatedLink: true },
    chapter: { type: 'chapter', many: false, relatedLink: true },
    comment: { type: 'comment', many: false },
    blog_post: { type: 'blog_post', many: false, relatedLink: true },
    private_message: { type: 'private_message', many: false, relatedLink: true },
  },
});

const NOTIFICATION_FIELDS = protoResourceMapper(NotificationSchema, NOTIFICATION_SCHEMA);

/**
 * Maps a messaging.v1 Notification to its JSON:API resource: `date_created` in ISO 8601 UTC, the
 * relationships its kind has (the others are left out, not null), each with `links.related`
 * where the resource has an API URL, and `links.self` = PUBLIC_BASE_URL/api/v1/notifications/<id>.
 */
export function toNotificationResource(notification: Notification, links: ApiLinks): ResourceObject {
  const relationships: Record<string, Relationship> = {};
  for (const [name, relationship] of Object.entries(NOTIFICATION_FIELDS.relationships(notification))) {
    const target = relationship.data as { readonly type: string; readonly id: string | undefined };
    if (target.id === undefined || target.id === '' || target.id === '0') continue;
    const path = RELATED_PATHS[name];
    relationships[name] = path === undefined ? relationship : { ...relationship, links: { related: links.to(path + target.id) } };
  }
  return resourceObject(NOTIFICATION_TYPE, notification.id, NOTIFICATION_FIELDS.attributes(notification), { relationships, self: links.to(`/notifications/${notification.id}`) });
}

/** The notification of a single-notification response, or null (none: the service found none of the caller's). */
export function notificationOf({ notification }: { readonly notification?: Notification }, links: ApiLinks): ResourceObject | null {
  return notification === undefined ? null : toNotificationResource(notification, links);
}

/** The notifications of a list page. */
export function notificationsOf({ notifications }: ListNotificationsResponse, links: ApiLinks): ResourceObject[] {
  return notifications.map((notification) => toNotificationResource(notification, links));
}

/** `include` of the notification endpoints: the related resources that have a batch loader (the others are reached by `links.related`). */
const NOTIFICATION_INCLUDES = ['actor', 'story', 'chapter'];
const NOTIFICATION_TYPES = [USER_SCHEMA, STORY_SCHEMA, CHAPTER_SCHEMA];
const NOTIFICATION_UNAVAILABLE_FIELDS = { chapter: CHAPTER_CONTENT_FIELDS };

/**
 * GET /users/:id/notifications (docs/api/updates.md, "Notifications"): newest first (the service's
 * order; no sort), `filter[read]`, `filter[kind]` (a comma list of kinds, at most the proto's
 * `max_items`), cursor pages (20 by default, the most is the rule of its page_size), `meta.unread`.
 */
export const NOTIFICATION_LIST = defineListSpec({
  resource: NOTIFICATION_SCHEMA,
  types: NOTIFICATION_TYPES,
  includes: NOTIFICATION_INCLUDES,
  unavailableFields: NOTIFICATION_UNAVAILABLE_FIELDS,
  filters: {
    read: filters.boolean(),
    kind: filters.enumerations(NOTIFICATION_KINDS, NotificationFilterSchema.field.kinds),
  },
  meta: { unread: at.integer('Your unread notifications, whatever the filters.', { minimum: 0 }) },
  pagination: cursorPagination(ListNotificationsRequestSchema.field.pageSize),
});

/** GET/PATCH /notifications/:id: `include` and `fields` as on the list. */
export const NOTIFICATION_DOCUMENT = defineDocumentSpec({ resource: NOTIFICATION_SCHEMA, types: NOTIFICATION_TYPES, includes: NOTIFICATION_INCLUDES, unavailableFields: NOTIFICATION_UNAVAILABLE_FIELDS });

/** PATCH body: only `read`. */
export const NOTIFICATION_MARK = defineWriteSpec({ resource: NOTIFICATION_SCHEMA, attributes: { read: writeValues.boolean() } });

/** GET /users/:id/notifications for the messaging service: the filters (the page is the route kind's). */
export function notificationListRequest(userId: string, query: ListQueryOf<typeof NOTIFICATION_LIST>): MessageInitShape<typeof ListNotificationsRequestSchema> {
  const { read, kind } = query.filters;
  return { userId, filter: { read, kinds: (kind ?? []).map((name) => KIND.toProto(name)) } };
}

/** The `meta` of every page of the list: the caller's unread count. */
export function notificationListMeta({ unread }: ListNotificationsResponse): { readonly [key: string]: JsonValue } {
  return { unread };
}

/** The JSON:API type of the body of POST /users/:id/notifications/read: where the reader has read up to. */
export const NOTIFICATION_READ_MARKER_TYPE = 'notification_read_marker';

/**
 * The body of POST /users/:id/notifications/read (docs/api/updates.md, "Notifications"): `up_to`
 * (a notification id: it and every older one) or `until` (a date-time: every one created at or
 * before it), exactly one. Write-only: it is never sent back, so it has no attribute types of its own
 * beyond what the API document shows of the body.
 */
export const NOTIFICATION_READ_MARKER_SCHEMA = defineResourceSchema({
  type: NOTIFICATION_READ_MARKER_TYPE,
  description: 'Marks read every notification up to one (`up_to`, an id) or up to a moment (`until`).',
  attributes: {
    up_to: at.string('A notification id: it and every older notification.'),
    until: at.dateTime('Every notification created at or before this date-time (a date alone: its whole UTC day).'),
  },
});

/** What POST /users/:id/notifications/read accepts: `up_to` or `until` (that exactly one is sent is the messaging service's rule). */
export const NOTIFICATION_READ_MARKER_WRITE = defineWriteSpec({
  resource: NOTIFICATION_READ_MARKER_SCHEMA,
  attributes: { up_to: writeValues.id(), until: writeValues.dateBound('max') },
});

/**
 * POST /users/:id/notifications/read for the messaging service. The proto holds `up_to` and `until`
 * in a oneof, which cannot carry both: a body with both sends neither, so that the service's rule
 * `up_to_id_or_until` refuses it with the same error as a body with neither (422 at `/data/attributes`).
 */
export function markReadRequest(userId: string, { attributes }: BodyOf<typeof NOTIFICATION_READ_MARKER_WRITE>): MessageInitShape<typeof MarkNotificationsReadRequestSchema> {
  const { up_to: upTo, until } = attributes;
  if (upTo !== undefined && until === undefined) return { userId, upTo: { case: 'upToId', value: upTo } };
  if (until !== undefined && upTo === undefined) return { userId, upTo: { case: 'until', value: until } };
  return { userId };
}

/** The `meta` of the answer to POST /users/:id/notifications/read: how many became read, how many are left unread. */
export function markReadMeta({ marked, unread }: MarkNotificationsReadResponse): { readonly [key: string]: JsonValue } {
  return { marked, unread };
}

/** The members of that `meta`, for the API document. */
export const MARK_READ_META = {
  marked: at.integer('How many unread notifications this made read.', { minimum: 0 }),
  unread: at.integer('Your unread notifications afterwards.', { minimum: 0 }),
};

/** The JSON:API type of a user's private notification feed. */
export const NOTIFICATION_FEED_TYPE = 'notification_feed';

/**
 * The private Atom feed of one's notifications (docs/api/updates.md, "Notifications"): its secret
 * `url` is shown once, in the answer that creates it; there is no way to read it again.
 */
export const NOTIFICATION_FEED_SCHEMA = defineResourceSchema({
  type: NOTIFICATION_FEED_TYPE,
  description: 'Your private Atom feed of notifications; its id is your user id.',
  attributes: {
    url: { ...at.string('The feed URL with its secret token: anyone who has it can read your notifications. Shown only once.'), format: 'uri' },
    date_created: at.dateTime(undefined, { nullable: true }),
  },
});

/** POST /users/:id/notifications/feed-token body: `{"data":{"type":"notification_feed"}}`, nothing to write. */
export const NOTIFICATION_FEED_WRITE = defineWriteSpec({ resource: NOTIFICATION_FEED_SCHEMA, attributes: {} });

/** The response document of that POST: `fields[notification_feed]`. */
export const NOTIFICATION_FEED_DOCUMENT = defineDocumentSpec({ resource: NOTIFICATION_FEED_SCHEMA });

/** The site path of the private feed of `token` (served by the gateway's feed routes, docs/api/updates.md, "Atom feeds"). */
export function notificationFeedPath(token: string): string {
  return `/feeds/notifications/${token}.atom`;
}

/**
 * The new feed of the path's user (`params.id`, `me` resolved): `url` =
 * PUBLIC_BASE_URL/feeds/notifications/<token>.atom. No `links.self` (there is nothing to GET),
 * hence no `Location` either.
 */
export function notificationFeedOf({ token, dateCreated }: CreateFeedTokenResponse, links: ApiLinks, params: { readonly id: string }): ResourceObject {
  return resourceObject(NOTIFICATION_FEED_TYPE, params.id, { url: links.site(notificationFeedPath(token)), date_created: timestampToApiDate(dateCreated) });
}

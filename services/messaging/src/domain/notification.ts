/**
 * What a notification is about (docs/api/updates.md, "Notification kinds and visibility"). The
 * names are the API's; KIND_CODES gives each the number it is stored as (the NotificationKind
 * number of the proto).
 */
export type NotificationKind = 'chapter_published' | 'story_published' | 'new_follower' | 'story_comment' | 'private_message' | 'blog_post';

/** Why a chapter_published notification reached its reader. */
export type NotificationReason = 'followed_author' | 'bookshelf';

/** The stored number of each kind. */
export const KIND_CODES: Readonly<Record<NotificationKind, number>> = {
  chapter_published: 1,
  story_published: 2,
  new_follower: 3,
  story_comment: 4,
  private_message: 5,
  blog_post: 6,
};

/** The kinds that reach many users (followers, shelf readers) and are written in chunks. */
export type FanoutKind = Extract<NotificationKind, 'chapter_published' | 'story_published' | 'blog_post'>;

/**
 * How many slices (by recipient user id modulo FANOUT_SLICES) a fan-out is split into, so that up
 * to this many workers share one large audience (docs/api/updates.md, "Fan-out model").
 */
export const FANOUT_SLICES = 4;

/** The stored bit of each reason. */
export const REASON_BITS: Readonly<Record<NotificationReason, number>> = { followed_author: 1, bookshelf: 2 };

/** How long a notification is kept and shown (docs/api/updates.md, "Notification kinds and visibility"). */
export const RETENTION_DAYS = 90;

/** The page size of a list when none is asked for, and the largest one. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** How many notifications the private Atom feed shows. */
export const FEED_SIZE = 50;

/** One notification of a user's inbox; only the subject ids of its kind are set. */
export interface Notification {
  id: string;
  userId: string;
  kind: NotificationKind;
  read: boolean;
  dateCreated: Date;
  /** Who did it: the author, the follower, the commenter or the sender; never the owner. */
  actorId: string;
  storyId?: string;
  chapterId?: string;
  commentId?: string;
  blogPostId?: string;
  privateMessageId?: string;
  /** chapter_published: every reason that applies, in the order of REASON_BITS; [] otherwise. */
  reasons: NotificationReason[];
}

/** The kind stored as `code`, or undefined for a number no kind has. */
export function kindOfCode(code: number): NotificationKind | undefined {
  return (Object.keys(KIND_CODES) as NotificationKind[]).find((kind) => KIND_CODES[kind] === code);
}

/** The reasons stored as the bits of `bits`, in the order of REASON_BITS. */
export function reasonsOfBits(bits: number): NotificationReason[] {
  return (Object.keys(REASON_BITS) as NotificationReason[]).filter((reason) => (bits & REASON_BITS[reason]) !== 0);
}

/** One page of a user's notifications, and the query that reads it. */
export interface InboxQuery {
  userId: string;
  /** Only read (true) or unread (false) ones. */
  read?: boolean;
  /** Only these kinds; undefined or empty: every kind. */
  kinds?: readonly NotificationKind[];
  /** Only notifications with a smaller id (the keyset of the next page). */
  beforeId?: string;
  /** 1–100. */
  pageSize: number;
  /** What the owner does not want to hear about (docs/api/safety.md): left out at read time. */
  hidden?: HiddenNotifications;
}

/**
 * The notifications a user's blocks and mutes hide (docs/api/safety.md): those whose actor is a
 * user they block or an author they mute, and those about a story carrying a tag they mute.
 */
export interface HiddenNotifications {
  actorIds: readonly string[];
  tagIds: readonly string[];
}

/** A page of an inbox and whether more follow it. */
export interface InboxPage {
  notifications: Notification[];
  more: boolean;
}

/** Where MarkNotificationsRead stops: a notification id (that one and every older one) or an instant (created at or before it). */
export type ReadMark = { upToId: string } | { until: Date };

const STORAGE_ID = /^[1-9][0-9]{0,18}$/;

/** True when `id` is a positive integer that fits a Postgres bigint (anything else names nothing). */
export function isNotificationId(id: string): boolean {
  return STORAGE_ID.test(id) && BigInt(id) <= 9223372036854775807n;
}

/** The page size asked for (0: the default), as a number of rows; the request rules bound it to 0–100. */
export function pageSizeOf(requested: number): number {
  if (requested <= 0) return DEFAULT_PAGE_SIZE;
  return Math.min(requested, MAX_PAGE_SIZE);
}

/**
 * The opaque position of the next page after `lastId` (the last notification of a page): `n`
 * and the id, so that a value the service did not issue is recognisable.
 */
export function encodeAfter(lastId: string): string {
  return `n${lastId}`;
}

/** The id a page continues below, from `after` as encodeAfter wrote it; undefined for anything else. */
export function decodeAfter(after: string): string | undefined {
  if (!after.startsWith('n')) return undefined;
  const id = after.slice(1);
  return isNotificationId(id) ? id : undefined;
}

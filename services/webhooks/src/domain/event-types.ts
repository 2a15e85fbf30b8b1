/**
 * The event types an app can subscribe to (docs/api/webhooks.md, "Event types"): the public ones
 * go to every subscribed endpoint; a private one goes to an app only for the user it concerns, and
 * only while that user grants the app `scope` (docs/api/webhooks.md, "Private events"). The proto
 * rule of EventTypeList lists the same names (a unit test keeps them equal).
 */
export const EVENT_TYPES = {
  'story.published': { scope: undefined },
  'story.updated': { scope: undefined },
  'story.unpublished': { scope: undefined },
  'story.draft_updated': { scope: 'read_stories' },
  'chapter.published': { scope: undefined },
  'blog_post.published': { scope: undefined },
  'bookshelf.updated': { scope: undefined },
  'private_bookshelf.updated': { scope: 'read_bookshelves' },
  'private_message.received': { scope: 'read_pms' },
} as const satisfies Record<string, { scope: string | undefined }>;

/** One of the names of {@link EVENT_TYPES}, e.g. `story.published`. */
export type EventType = keyof typeof EVENT_TYPES;

/** Every event type name, in the documented order. */
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];

/** Whether `name` is an event type an endpoint can subscribe to. */
export function isEventType(name: string): name is EventType {
  return Object.hasOwn(EVENT_TYPES, name);
}

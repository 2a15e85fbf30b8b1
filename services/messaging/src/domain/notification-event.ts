/**
 * What the messaging service learns from another service's event, as far as notifications care
 * (docs/api/updates.md, "Notification kinds and visibility"): a change of a local copy, something
 * to notify, or both. The consumer decodes envelopes into these; ids are decimal strings.
 */
export type NotificationEvent =
  | { type: 'followed'; followId: string; followerId: string; followedId: string; occurredAt: Date }
  | { type: 'unfollowed'; followId: string; followerId: string; followedId: string }
  | { type: 'shelf_item_added'; itemId: string; ownerId: string; storyId: string }
  | { type: 'shelf_item_removed'; itemId: string; ownerId: string; storyId: string }
  | { type: 'story'; story: StoryChange; occurredAt: Date }
  | { type: 'chapter'; chapter: ChapterChange; occurredAt: Date }
  | { type: 'comment_created'; commentId: string; storyId: string; commenterId: string; occurredAt: Date }
  | { type: 'comment_deleted'; commentId: string }
  | { type: 'message_sent'; messageId: string; senderId: string; recipientId: string; occurredAt: Date }
  | { type: 'blog_post_created'; blogPostId: string; authorId: string; sitePost: boolean; occurredAt: Date }
  | { type: 'blog_post_deleted'; blogPostId: string };

/** A story's state after an event, and whether the event published it. */
export interface StoryChange {
  storyId: string;
  authorId: string;
  published: boolean;
  /** Deletion is final: later states are ignored. */
  deleted: boolean;
  /** The story's date_modified: an older state never replaces a newer one. */
  version: Date;
  /** The event made the story published (StoryCreated published, or StoryUpdated from unpublished). */
  becamePublished: boolean;
  /** The story's first publication, when it has one. */
  datePublished?: Date;
  /** The story's tags, where the event carries them (a muted tag hides its notifications, docs/api/safety.md). */
  tagIds?: readonly string[];
}

/** A chapter's state after an event, and whether the event published it. */
export interface ChapterChange {
  chapterId: string;
  storyId: string;
  authorId: string;
  published: boolean;
  deleted: boolean;
  /** The chapter's date_modified (see StoryChange.version). */
  version: Date;
  /** ChapterCreated published, or ChapterUpdated from unpublished to published. */
  becamePublished: boolean;
  /** When it became published (the event's time), if this event published it. */
  publishedAt?: Date;
}

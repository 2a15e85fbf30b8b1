/**
 * What the blog knows about one story, from the stories service's events: enough to tell whether
 * a post may link it (published) and whether a link is still shown.
 */
export interface StoryChange {
  storyId: string;
  published: boolean;
  /** True for StoryDeleted: the story is gone for good and later events about it are ignored. */
  deleted: boolean;
  /** When the change happened (the event's occurred_at); older changes never overwrite newer ones. */
  occurredAt: Date;
}

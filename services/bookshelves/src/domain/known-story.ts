/**
 * The state of one story as the bookshelves service keeps it: from the stories service's events
 * (stories.story.v1) or from its GetStory answer when an item is added.
 */
export interface StoryState {
  storyId: string;
  authorId: string;
  published: boolean;
  /** True once the story is deleted: final, later states are ignored. */
  deleted: boolean;
  /**
   * The story's date_modified, which the stories service moves on every change: a state replaces
   * the stored one only if it is not older, so a stale or replayed event never rolls it back.
   */
  version: Date;
}

/** True when `incoming` may replace `stored` (see StoryState.version; deletion is final). */
export function supersedes(incoming: StoryState, stored: StoryState): boolean {
  return !stored.deleted && incoming.version.getTime() >= stored.version.getTime();
}

/** True when the story's items count in num_stories/num_unread (published and not deleted). */
export function counts(state: Pick<StoryState, 'published' | 'deleted'> | undefined): boolean {
  return state !== undefined && state.published && !state.deleted;
}

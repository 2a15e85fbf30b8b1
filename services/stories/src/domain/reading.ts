/**
 * How far one user has read one story (docs/api/stories.md, "Reading progress"), over the story's
 * published chapters as they are now.
 */
export interface ReadingProgress {
  storyId: string;
  /** The published chapter marked read most recently; null when none of the marked ones is published now. */
  lastChapterReadId: string | null;
  /** The first published chapter, in chapter order, not marked read; null when all are. */
  nextChapterId: string | null;
  /** Published chapters marked read. */
  numChaptersRead: number;
  /** Published chapters not marked read. */
  numUnreadChapters: number;
  /** The user's last mark or unmark of a chapter of the story: the reading list's order. */
  dateLastRead: Date;
}

/** The order of the reading list, as positions name it: the most recent activity first, ties by story id. */
export const READING_LIST_ORDER = 'date_last_read.desc';

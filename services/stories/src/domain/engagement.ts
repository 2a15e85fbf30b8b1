/** One user's vote on a story. */
export type RatingValue = 'like' | 'dislike';

/** A comment on a published story. */
export interface Comment {
  id: string;
  storyId: string;
  authorId: string;
  /** Markdown. */
  content: string;
  contentHtml: string;
  datePosted: Date;
}

/** The reader-driven totals of a story that votes and comments change. */
export interface EngagementTotals {
  likes: number;
  dislikes: number;
  comments: number;
}

/**
 * The totals after a vote changed from `previous` to `value` (either may be undefined: no vote):
 * likes += (value is like) − (previous was like), and likewise for dislikes. Never negative.
 */
export function afterVote(totals: EngagementTotals, value: RatingValue | undefined, previous: RatingValue | undefined): EngagementTotals {
  const delta = (kind: RatingValue) => (value === kind ? 1 : 0) - (previous === kind ? 1 : 0);
  return { ...totals, likes: Math.max(0, totals.likes + delta('like')), dislikes: Math.max(0, totals.dislikes + delta('dislike')) };
}

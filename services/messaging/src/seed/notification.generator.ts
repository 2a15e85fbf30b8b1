import { prng } from '@inkwell/datagen';
import type { BulkNotification } from '../repositories/notification-bulk-load.repository.js';
import { REASON_BITS, RETENTION_DAYS, type NotificationKind } from '../domain/notification.js';

/** A published story of the local copy and its published chapters, for story and chapter notifications. */
export interface GeneratorStory {
  id: string;
  authorId: string;
  chapterIds: readonly string[];
}

/** What to generate. */
export interface NotificationGeneratorOptions {
  /** How many notifications. */
  count: number;
  /** Whose inboxes they fill (ids of existing users), in turn, so every inbox gets count / users. */
  userIds: readonly string[];
  /**
   * Published stories they can be about. Story and chapter notifications need at least one;
   * with none, those kinds are left out.
   */
  stories: readonly GeneratorStory[];
  /** First id of the synthetic subjects (comments, private messages, blog posts): above any real one. */
  firstSyntheticId: number;
  /** Notifications are spread evenly over the retention window before `end`, oldest first. */
  end: Date;
  seed?: number;
}

/** How an inbox is made up, in shares of its notifications. */
const KIND_SHARES: ReadonlyArray<readonly [NotificationKind, number]> = [
  ['chapter_published', 0.4],
  ['story_published', 0.1],
  ['new_follower', 0.15],
  ['story_comment', 0.15],
  ['private_message', 0.15],
  ['blog_post', 0.05],
];
/** Notifications this recent are unread; older ones nearly all read. */
const UNREAD_MS = 3 * 24 * 3600 * 1000;
const OLD_UNREAD_SHARE = 0.02;

/**
 * Generates a benchmark inbox data set: `count` notifications dealt to `userIds` in turn, oldest
 * first over the 90-day retention window (ids follow dates, as in the running system), of every
 * kind in the shares of KIND_SHARES, every inbox with the same sequence of kinds. Unique per kind,
 * subject and user as the table demands: the k-th chapter (story, follower) notification of a user
 * takes the k-th chapter (story, user) after the user's own offset, so one inbox never repeats a
 * subject; comments, private messages and blog posts are synthetic ids from `firstSyntheticId`
 * up, one per notification. Story and chapter kinds are left out when there are fewer stories or
 * chapters than one inbox would need of them.
 */
export function* generateNotifications(options: NotificationGeneratorOptions): Generator<BulkNotification> {
  const random = prng(options.seed ?? 20261126);
  const users = options.userIds;
  const stories = options.stories;
  const chapters = stories.flatMap((story) => story.chapterIds.map((chapterId) => ({ story, chapterId })));
  const perUser = Math.ceil(options.count / Math.max(1, users.length));
  const kinds = kindSequence(perUser, (kind) => {
    if (kind === 'chapter_published') return chapters.length;
    if (kind === 'story_published') return stories.length;
    if (kind === 'new_follower') return users.length - 1;
    return Number.POSITIVE_INFINITY;
  });
  const spanMs = RETENTION_DAYS * 24 * 3600 * 1000 - 3600 * 1000;
  const start = options.end.getTime() - spanMs;
  let synthetic = options.firstSyntheticId;
  for (let i = 0; i < options.count; i++) {
    const userIndex = i % users.length;
    const userId = users[userIndex]!;
    const { kind, ordinal } = kinds[Math.floor(i / users.length)]!;
    const createdAt = new Date(start + Math.floor((i * spanMs) / options.count));
    const read = options.end.getTime() - createdAt.getTime() >= UNREAD_MS && random() >= OLD_UNREAD_SHARE;
    const someone = users[(userIndex + 1 + ordinal) % users.length]!;
    if (kind === 'chapter_published') {
      const { story, chapterId } = chapters[(userIndex + ordinal) % chapters.length]!;
      yield { userId, kind, subjectId: chapterId, actorId: otherThan(story.authorId, userId, someone), storyId: story.id, chapterId, reasons: REASON_BITS.followed_author, createdAt, read };
    } else if (kind === 'story_published') {
      const story = stories[(userIndex + ordinal) % stories.length]!;
      yield { userId, kind, subjectId: story.id, actorId: otherThan(story.authorId, userId, someone), storyId: story.id, createdAt, read };
    } else if (kind === 'new_follower') {
      yield { userId, kind, subjectId: someone, actorId: someone, createdAt, read };
    } else {
      const subjectId = synthetic++;
      const subject = kind === 'story_comment' ? { commentId: subjectId } : kind === 'private_message' ? { privateMessageId: subjectId } : { blogPostId: subjectId };
      yield { userId, kind, subjectId, actorId: someone, ...subject, createdAt, read };
    }
  }
}

/** `preferred`, unless it is `owner` (nobody is notified of what they did), then `fallback`. */
function otherThan(preferred: string, owner: string, fallback: string): string {
  return preferred !== owner ? preferred : fallback;
}

/**
 * The kind of each turn of an inbox and how many of that kind came before it, spread evenly in
 * the shares of KIND_SHARES; a kind with fewer distinct subjects (`subjects(kind)`) than the inbox
 * would need of it is left out.
 */
function kindSequence(length: number, subjects: (kind: NotificationKind) => number): Array<{ kind: NotificationKind; ordinal: number }> {
  const shares = KIND_SHARES.filter(([kind, share]) => subjects(kind) >= Math.ceil(length * share) + 1);
  const total = shares.reduce((sum, [, share]) => sum + share, 0);
  const credit = new Map(shares.map(([kind]) => [kind, 0]));
  const counts = new Map(shares.map(([kind]) => [kind, 0]));
  const sequence: Array<{ kind: NotificationKind; ordinal: number }> = [];
  for (let i = 0; i < length; i++) {
    for (const [kind, share] of shares) credit.set(kind, credit.get(kind)! + share / total);
    const [kind] = [...credit.entries()].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
    credit.set(kind, credit.get(kind)! - 1);
    sequence.push({ kind, ordinal: counts.get(kind)! });
    counts.set(kind, counts.get(kind)! + 1);
  }
  return sequence;
}

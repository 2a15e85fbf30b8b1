import { create, equals } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { EventPayloadInit } from '@inkwell/events';
import {
  ChapterCreatedSchema,
  ChapterDeletedSchema,
  ChapterSnapshotSchema,
  ChapterUpdatedSchema,
  CommentCreatedSchema,
  CommentDeletedSchema,
  RatingValue as ProtoRatingValue,
  StoryCreatedSchema,
  StoryRatedSchema,
  StoryStatsChangedSchema,
  StoryDeletedSchema,
  StorySnapshotSchema,
  StoryUpdatedSchema,
  StoryViewedSchema,
  type ChapterSnapshot,
  type StorySnapshot,
} from '@inkwell/proto/stories';
import type { Chapter } from '../domain/chapter.js';
import type { Comment, RatingValue } from '../domain/engagement.js';
import type { Story } from '../domain/story.js';
import { CONTENT_RATING_TO_PROTO, STATUS_TO_PROTO } from './story.enums.js';

/** The reader of a counted view: a user, or the app of an app-only token. */
export type Reader = { userId: string } | { appId: string };

function storySnapshot(story: Story): StorySnapshot {
  return create(StorySnapshotSchema, {
    storyId: story.id,
    authorId: story.authorId,
    title: story.title,
    status: STATUS_TO_PROTO[story.status],
    contentRating: CONTENT_RATING_TO_PROTO[story.contentRating],
    published: story.published,
    numWords: story.numWords,
    numChapters: story.numChapters,
    tagIds: story.tagIds,
    ...(story.datePublished ? { datePublished: timestampFromDate(story.datePublished) } : {}),
    dateModified: timestampFromDate(story.dateModified),
    ...(story.dateUpdated ? { dateUpdated: timestampFromDate(story.dateUpdated) } : {}),
  });
}

function chapterSnapshot(chapter: Chapter, authorId: string): ChapterSnapshot {
  return create(ChapterSnapshotSchema, {
    chapterId: chapter.id,
    storyId: chapter.storyId,
    authorId,
    title: chapter.title,
    chapterNumber: chapter.chapterNumber,
    published: chapter.published,
    numWords: chapter.numWords,
    ...(chapter.datePublished ? { datePublished: timestampFromDate(chapter.datePublished) } : {}),
    dateModified: timestampFromDate(chapter.dateModified),
  });
}

/** `StoryCreated` of a new story. */
export function storyCreated(story: Story): EventPayloadInit {
  return { case: 'storyCreated', value: create(StoryCreatedSchema, { story: storySnapshot(story) }) };
}

/** `StoryUpdated` from the state before and after a change. */
export function storyUpdated(before: Story, after: Story): EventPayloadInit {
  return {
    case: 'storyUpdated',
    value: create(StoryUpdatedSchema, { story: storySnapshot(after), previousPublished: before.published, previousTagIds: before.tagIds }),
  };
}

/** `StoryDeleted` with the last state of the story. */
export function storyDeleted(story: Story): EventPayloadInit {
  return { case: 'storyDeleted', value: create(StoryDeletedSchema, { story: storySnapshot(story) }) };
}

/** `StoryViewed`: a counted read of a chapter's content. */
export function storyViewed(storyId: string, chapterId: string, reader: Reader): EventPayloadInit {
  const readerCase = 'userId' in reader ? { case: 'readerUserId' as const, value: reader.userId } : { case: 'readerAppId' as const, value: reader.appId };
  return { case: 'storyViewed', value: create(StoryViewedSchema, { storyId, chapterId, reader: readerCase }) };
}

/** `ChapterCreated` of a new chapter of a story by `authorId`. */
export function chapterCreated(chapter: Chapter, authorId: string): EventPayloadInit {
  return { case: 'chapterCreated', value: create(ChapterCreatedSchema, { chapter: chapterSnapshot(chapter, authorId) }) };
}

/** `ChapterUpdated` from the state before and after a change (including renumbering). */
export function chapterUpdated(before: Chapter, after: Chapter, authorId: string): EventPayloadInit {
  return {
    case: 'chapterUpdated',
    value: create(ChapterUpdatedSchema, { chapter: chapterSnapshot(after, authorId), previousPublished: before.published, previousNumWords: before.numWords }),
  };
}

/** `ChapterDeleted` with the last state of the chapter. */
export function chapterDeleted(chapter: Chapter, authorId: string): EventPayloadInit {
  return { case: 'chapterDeleted', value: create(ChapterDeletedSchema, { chapter: chapterSnapshot(chapter, authorId) }) };
}

/** True when a story change is visible in its event snapshot (counts of readers are not). */
export function snapshotChanged(before: Story, after: Story): boolean {
  return !equals(StorySnapshotSchema, storySnapshot(before), storySnapshot(after));
}

/** Domain vote → proto (undefined: no vote). */
export function ratingValueToProto(value: RatingValue | undefined): ProtoRatingValue {
  if (value === 'like') return ProtoRatingValue.LIKE;
  if (value === 'dislike') return ProtoRatingValue.DISLIKE;
  return ProtoRatingValue.UNSPECIFIED;
}

/** Proto vote → domain; UNSPECIFIED (and unknown numbers) → undefined. */
export function ratingValueFromProto(value: ProtoRatingValue): RatingValue | undefined {
  if (value === ProtoRatingValue.LIKE) return 'like';
  if (value === ProtoRatingValue.DISLIKE) return 'dislike';
  return undefined;
}

/** `StoryRated`: a user's vote changed from `previous` to `value` (undefined: none). */
export function storyRated(storyId: string, userId: string, value: RatingValue | undefined, previous: RatingValue | undefined): EventPayloadInit {
  return {
    case: 'storyRated',
    value: create(StoryRatedSchema, { storyId, userId, value: ratingValueToProto(value), previousValue: ratingValueToProto(previous) }),
  };
}

/** `CommentCreated` of a new comment. */
export function commentCreated(comment: Comment): EventPayloadInit {
  return {
    case: 'commentCreated',
    value: create(CommentCreatedSchema, { commentId: comment.id, storyId: comment.storyId, authorId: comment.authorId, datePosted: timestampFromDate(comment.datePosted) }),
  };
}

/** `CommentDeleted` of a comment (by its author, the story's author, or with its story). */
export function commentDeleted(comment: Comment): EventPayloadInit {
  return { case: 'commentDeleted', value: create(CommentDeletedSchema, { commentId: comment.id, storyId: comment.storyId, authorId: comment.authorId }) };
}

/** `StoryStatsChanged`: the reader-driven values of story `storyId` after the stats consumer changed them. */
export function storyStatsChanged(storyId: string, stats: { views: number; likes: number; dislikes: number; comments: number; rating: number | null; hotness: number }): EventPayloadInit {
  return {
    case: 'storyStatsChanged',
    value: create(StoryStatsChangedSchema, {
      storyId,
      numViews: stats.views,
      numLikes: stats.likes,
      numDislikes: stats.dislikes,
      numComments: stats.comments,
      ...(stats.rating === null ? {} : { rating: stats.rating }),
      hotness: stats.hotness,
    }),
  };
}

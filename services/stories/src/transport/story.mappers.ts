import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import {
  ChapterSchema,
  CommentSchema,
  ReadingProgressSchema,
  SortDirection as ProtoSortDirection,
  StorySchema,
  StorySortField as ProtoStorySortField,
  StoryStatus as ProtoStoryStatus,
  ContentRating as ProtoContentRating,
  TagKind as ProtoTagKind,
  TagSchema,
  TagSortField as ProtoTagSortField,
  type Chapter as ProtoChapter,
  type Comment as ProtoComment,
  type ReadingProgress as ProtoReadingProgress,
  type Story as ProtoStory,
  type StoryFilter as ProtoStoryFilter,
  type StorySort as ProtoStorySort,
  type Tag as ProtoTag,
  type TagSort as ProtoTagSort,
} from '@inkwell/proto/stories';
import type { Chapter } from '../domain/chapter.js';
import type { Comment } from '../domain/engagement.js';
import type { Sort, SortDirection, StorySortField } from '../domain/list.js';
import type { ReadingProgress } from '../domain/reading.js';
import type { ContentRating, Story, StoryStatus } from '../domain/story.js';
import type { Tag, TagKind } from '../domain/tag.js';
import { CONTENT_RATING_TO_PROTO, contentRatingFromProto, STATUS_TO_PROTO, statusFromProto } from '../events/story.enums.js';
import type { StoryFilterInput } from '../services/story.service.js';

const SORT_FIELDS: Readonly<Record<ProtoStorySortField, StorySortField | undefined>> = {
  [ProtoStorySortField.UNSPECIFIED]: undefined,
  [ProtoStorySortField.DATE_PUBLISHED]: 'date_published',
  [ProtoStorySortField.HOTNESS]: 'hotness',
  [ProtoStorySortField.DATE_MODIFIED]: 'date_modified',
  [ProtoStorySortField.RATING]: 'rating',
  [ProtoStorySortField.NUM_WORDS]: 'num_words',
  [ProtoStorySortField.NUM_VIEWS]: 'num_views',
  [ProtoStorySortField.NUM_COMMENTS]: 'num_comments',
  [ProtoStorySortField.RELEVANCE]: 'relevance',
  [ProtoStorySortField.NUM_LIKES]: 'num_likes',
  [ProtoStorySortField.NUM_DISLIKES]: 'num_dislikes',
  [ProtoStorySortField.DATE_ADDED]: 'date_added',
  [ProtoStorySortField.DATE_UPDATED]: 'date_updated',
};

const date = (value: Date | null) => (value ? timestampFromDate(value) : undefined);

/** Domain story → proto Story. */
export function toProtoStory(story: Story): ProtoStory {
  return create(StorySchema, {
    id: story.id,
    authorId: story.authorId,
    title: story.title,
    shortDescription: story.shortDescription,
    description: story.description,
    descriptionHtml: story.descriptionHtml,
    status: STATUS_TO_PROTO[story.status],
    contentRating: CONTENT_RATING_TO_PROTO[story.contentRating],
    published: story.published,
    numWords: story.numWords,
    numChapters: story.numChapters,
    numViews: story.numViews,
    numLikes: story.numLikes,
    numDislikes: story.numDislikes,
    numComments: story.numComments,
    ...(story.rating === null ? {} : { rating: story.rating }),
    hotness: story.hotness,
    datePublished: date(story.datePublished),
    dateModified: timestampFromDate(story.dateModified),
    dateUpdated: date(story.dateUpdated),
    tagIds: story.tagIds,
    chapterIds: story.chapterIds,
  });
}

/** Domain chapter → proto Chapter; content fields only when the chapter carries them. */
export function toProtoChapter(chapter: Chapter): ProtoChapter {
  return create(ChapterSchema, {
    id: chapter.id,
    storyId: chapter.storyId,
    title: chapter.title,
    ...(chapter.content === undefined ? {} : { content: chapter.content, contentHtml: chapter.contentHtml ?? '' }),
    authorsNote: chapter.authorsNote,
    authorsNoteHtml: chapter.authorsNoteHtml,
    chapterNumber: chapter.chapterNumber,
    published: chapter.published,
    numWords: chapter.numWords,
    numViews: chapter.numViews,
    datePublished: date(chapter.datePublished),
    dateModified: timestampFromDate(chapter.dateModified),
    ...(chapter.read === undefined ? {} : { read: chapter.read }),
  });
}

/** Domain reading progress → proto ReadingProgress (unset chapters when there are none). */
export function toProtoReadingProgress(progress: ReadingProgress): ProtoReadingProgress {
  return create(ReadingProgressSchema, {
    storyId: progress.storyId,
    ...(progress.lastChapterReadId === null ? {} : { lastChapterReadId: progress.lastChapterReadId }),
    ...(progress.nextChapterId === null ? {} : { nextChapterId: progress.nextChapterId }),
    numChaptersRead: progress.numChaptersRead,
    numUnreadChapters: progress.numUnreadChapters,
    dateLastRead: timestampFromDate(progress.dateLastRead),
  });
}

/** Domain comment → proto Comment. */
export function toProtoComment(comment: Comment): ProtoComment {
  return create(CommentSchema, {
    id: comment.id,
    storyId: comment.storyId,
    authorId: comment.authorId,
    content: comment.content,
    contentHtml: comment.contentHtml,
    datePosted: timestampFromDate(comment.datePosted),
  });
}

/** Domain tag → proto Tag. */
export function toProtoTag(tag: Tag): ProtoTag {
  return create(TagSchema, {
    id: tag.id,
    name: tag.name,
    kind: tag.kind === 'character' ? ProtoTagKind.CHARACTER : ProtoTagKind.GENRE,
    slug: tag.slug,
    numStories: tag.numStories,
  });
}

/**
 * An enum value the request's rules (`enum.defined_only`, proto/inkwell/stories/v1) let through
 * but this mapper does not know: the proto gained a value the service was not taught.
 */
function unmapped(what: string, value: number): Error {
  return new Error(`No mapping for ${what} ${value}`);
}

function direction(value: ProtoSortDirection): SortDirection {
  if (value === ProtoSortDirection.DESCENDING) return 'desc';
  if (value === ProtoSortDirection.ASCENDING || value === ProtoSortDirection.UNSPECIFIED) return 'asc';
  throw unmapped('sort direction', value);
}

/** Proto StorySort → domain sort; undefined means the default sort. */
export function storySortFromProto(sort: ProtoStorySort | undefined): Sort | undefined {
  if (!sort || sort.field === ProtoStorySortField.UNSPECIFIED) return undefined;
  const field = SORT_FIELDS[sort.field];
  if (!field) throw unmapped('story sort field', sort.field);
  return { field, direction: direction(sort.direction) };
}

/** Proto TagSort → domain sort; undefined means catalogue order. */
export function tagSortFromProto(sort: ProtoTagSort | undefined): Sort<'name' | 'num_stories'> | undefined {
  if (!sort || sort.field === ProtoTagSortField.UNSPECIFIED) return undefined;
  if (sort.field === ProtoTagSortField.NAME) return { field: 'name', direction: direction(sort.direction) };
  if (sort.field === ProtoTagSortField.NUM_STORIES) return { field: 'num_stories', direction: direction(sort.direction) };
  throw unmapped('tag sort field', sort.field);
}

/** Proto TagKind → domain; UNSPECIFIED means both kinds. */
export function tagKindFromProto(kind: ProtoTagKind): TagKind | undefined {
  if (kind === ProtoTagKind.CHARACTER) return 'character';
  if (kind === ProtoTagKind.GENRE) return 'genre';
  if (kind === ProtoTagKind.UNSPECIFIED) return undefined;
  throw unmapped('tag kind', kind);
}

/** Proto status (UNSPECIFIED = not given) → domain; the request's rules refuse unknown values. */
export function statusOfRequest(value: ProtoStoryStatus): StoryStatus | undefined {
  if (value === ProtoStoryStatus.UNSPECIFIED) return undefined;
  const status = statusFromProto(value);
  if (!status) throw unmapped('story status', value);
  return status;
}

/** A rating of a filter the request's rules let through although it is UNSPECIFIED (they refuse it: `not_in: [0]`). */
function unmappedRating(value: ProtoContentRating): never {
  throw unmapped('content rating', value);
}

/** Proto content rating (UNSPECIFIED = not given) → domain; the request's rules refuse unknown values. */
export function contentRatingOfRequest(value: ProtoContentRating): ContentRating | undefined {
  if (value === ProtoContentRating.UNSPECIFIED) return undefined;
  const rating = contentRatingFromProto(value);
  if (!rating) throw unmapped('content rating', value);
  return rating;
}

const instant = (value: Timestamp | undefined) => (value ? timestampDate(value) : undefined);

/** Proto StoryFilter → the service's filter input. */
export function storyFilterFromProto(filter: ProtoStoryFilter | undefined): StoryFilterInput {
  const input: StoryFilterInput = { ids: filter?.ids ?? [], tagIds: filter?.tagIds ?? [] };
  if (!filter) return input;
  if (filter.authorIds.length > 0) input.authorIds = filter.authorIds;
  if (filter.numWordsMin !== undefined) input.numWordsMin = filter.numWordsMin;
  if (filter.numWordsMax !== undefined) input.numWordsMax = filter.numWordsMax;
  const status = statusOfRequest(filter.status);
  if (status) input.status = status;
  const min = instant(filter.datePublishedMin);
  const max = instant(filter.datePublishedMax);
  if (min) input.datePublishedMin = min;
  if (max) input.datePublishedMax = max;
  const updatedMin = instant(filter.dateUpdatedMin);
  const updatedMax = instant(filter.dateUpdatedMax);
  if (updatedMin) input.dateUpdatedMin = updatedMin;
  if (updatedMax) input.dateUpdatedMax = updatedMax;
  if (filter.excludedTagIds.length > 0) input.excludedTagIds = filter.excludedTagIds;
  if (filter.hiddenAuthorIds.length > 0) input.hiddenAuthorIds = filter.hiddenAuthorIds;
  if (filter.hiddenTagIds.length > 0) input.hiddenTagIds = filter.hiddenTagIds;
  if (filter.contentRatings.length > 0) input.contentRatings = filter.contentRatings.map((value) => contentRatingOfRequest(value) ?? unmappedRating(value));
  if (filter.bookshelfId !== undefined) input.bookshelfId = filter.bookshelfId;
  if (filter.unread !== undefined) input.unread = filter.unread;
  return input;
}

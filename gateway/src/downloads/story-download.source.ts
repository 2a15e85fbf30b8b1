import { hash } from 'node:crypto';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { AppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import { ContentRating, StoryStatus, type Chapter, type StoriesService } from '@inkwell/proto/stories';
import type { UsersService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { DownloadFormat } from './download-format.js';

/** What a download says about its story besides the chapters: everything its title page shows. */
export interface DownloadStory {
  readonly id: string;
  readonly title: string;
  readonly shortDescription: string;
  /** Markdown, as written. */
  readonly description: string;
  /** The sanitised HTML of the description. */
  readonly descriptionHtml: string;
  readonly authorName: string;
  readonly tagNames: readonly string[];
  /** How the title page says it: `complete`, `incomplete`, `on hiatus`, `cancelled`. */
  readonly status: string;
  /** `everyone`, `teen`, `mature`. */
  readonly contentRating: string;
  readonly numWords: number;
  readonly published: boolean;
  readonly datePublished: Date | undefined;
  readonly dateUpdated: Date | undefined;
  readonly dateModified: Date;
  /** The story's API URL: the EPUB's identifier and the "source" line. */
  readonly url: string;
}

/** A chapter's place in a table of contents, known before any chapter's text is read. */
export interface ChapterOutline {
  readonly id: string;
  readonly title: string;
  readonly published: boolean;
}

/** The backends a download reads, as the caller. */
export interface DownloadBackends {
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly users: GrpcClient<typeof UsersService>;
}

/** The options of every backend call of one download: the caller and the download's signal (client gone, deadline). */
export interface DownloadCallOptions {
  readonly caller: CallerContext;
  readonly signal: AbortSignal;
}

/**
 * Chapters whose text is asked for in one call (docs/api/stories.md, "Downloads"): a page of
 * `ListChapters` with content is at most this many chapters (and at most its 16 MiB text budget),
 * so what one download holds at a time stays bounded whatever the story's length.
 */
export const DOWNLOAD_BATCH_CHAPTERS = 10;
/** Chapters per call when only their titles are read (the table of contents). */
const OUTLINE_PAGE = 100;
/** Raised whenever what a download contains, or how it is laid out, changes: old validators then no longer match. */
const DOWNLOAD_LAYOUT_VERSION = 1;

const STATUS_NAMES: Readonly<Record<StoryStatus, string>> = {
  [StoryStatus.UNSPECIFIED]: 'incomplete',
  [StoryStatus.COMPLETE]: 'complete',
  [StoryStatus.INCOMPLETE]: 'incomplete',
  [StoryStatus.ON_HIATUS]: 'on hiatus',
  [StoryStatus.CANCELLED]: 'cancelled',
};
const RATING_NAMES: Readonly<Record<ContentRating, string>> = {
  [ContentRating.UNSPECIFIED]: 'everyone',
  [ContentRating.EVERYONE]: 'everyone',
  [ContentRating.TEEN]: 'teen',
  [ContentRating.MATURE]: 'mature',
};

/** A story as a download starts: what it says about the story, and the validator of its bytes. */
export interface DownloadStart {
  readonly story: DownloadStory;
  /** A strong ETag: the same for the same bytes (docs/api/stories.md, "Downloads"). */
  readonly etag: string;
}

/**
 * Reads what a download of story `id` needs before its chapters, as the caller sees it: the story
 * (GetStory: another user's draft is NOT_FOUND, one's own without read_stories
 * PERMISSION_DENIED), its author's name and its tags' names. The ETag is derived from the story's
 * version, never from the bytes, so a matching `If-None-Match` costs these three calls only: the
 * format, the story's `date_modified` (every write to the story or any of its chapters), the ids
 * of the chapters the caller sees (a chapter added, published or removed), its tags, the author's
 * name, and whether the caller sees drafts.
 */
export async function startDownload(backends: DownloadBackends, links: ApiLinks, id: string, format: DownloadFormat, options: DownloadCallOptions): Promise<DownloadStart> {
  const { story } = await backends.stories.getStory({ id }, options);
  if (story === undefined) throw AppError.notFound('story');
  const [{ user }, { tags }] = await Promise.all([
    backends.users.getUser({ id: story.authorId }, options),
    story.tagIds.length === 0 ? Promise.resolve({ tags: [] }) : backends.stories.batchGetTags({ ids: story.tagIds }, options),
  ]);
  const dateModified = dateOf(story.dateModified) ?? new Date(0);
  const authorName = user?.name ?? '';
  const seesDrafts = options.caller.userId === story.authorId && options.caller.scopes.includes('read_stories');
  const version = JSON.stringify([DOWNLOAD_LAYOUT_VERSION, format, story.id, dateModified.toISOString(), story.chapterIds, story.tagIds, authorName, seesDrafts]);
  return {
    etag: `"${format}-${hash('sha256', version, 'base64url')}"`,
    story: {
      id: story.id,
      title: story.title,
      shortDescription: story.shortDescription,
      description: story.description,
      descriptionHtml: story.descriptionHtml,
      authorName,
      tagNames: tags.map((tag) => tag.name),
      status: STATUS_NAMES[story.status],
      contentRating: RATING_NAMES[story.contentRating],
      numWords: story.numWords,
      published: story.published,
      datePublished: dateOf(story.datePublished),
      dateUpdated: dateOf(story.dateUpdated),
      dateModified,
      url: links.to(`/stories/${story.id}`),
    },
  };
}

/** The table of contents: every chapter the caller sees, in chapter order, without text (pages of 100). */
export async function chapterOutline(stories: GrpcClient<typeof StoriesService>, storyId: string, options: DownloadCallOptions): Promise<ChapterOutline[]> {
  const outline: ChapterOutline[] = [];
  let after = '';
  do {
    const page = await stories.listChapters({ storyId, pageSize: OUTLINE_PAGE, after }, options);
    for (const chapter of page.chapters) outline.push({ id: chapter.id, title: chapter.title, published: chapter.published });
    after = page.nextAfter;
  } while (after !== '');
  return outline;
}

/**
 * Every chapter the caller sees, with its text, in chapter order, read {@link DOWNLOAD_BATCH_CHAPTERS}
 * at a time: the next page is asked for only when the consumer has written the previous one, so
 * a slow client slows the reading and a download never holds more than one page. Reading the
 * text counts views as the chapter list with content does (docs/api/stories.md, "Downloads").
 */
export async function* chaptersWithText(stories: GrpcClient<typeof StoriesService>, storyId: string, options: DownloadCallOptions): AsyncGenerator<Chapter> {
  let after = '';
  do {
    options.signal.throwIfAborted();
    const page = await stories.listChapters({ storyId, pageSize: DOWNLOAD_BATCH_CHAPTERS, after, includeContent: true }, options);
    after = page.nextAfter;
    // Handed over one by one and dropped from the page as they go, so that a written chapter can be collected.
    const chapters = page.chapters;
    page.chapters = [];
    for (let i = 0; i < chapters.length; i++) {
      const chapter = chapters[i] as Chapter;
      chapters[i] = undefined as never;
      yield chapter;
    }
  } while (after !== '');
}

function dateOf(timestamp: Timestamp | undefined): Date | undefined {
  return timestamp === undefined ? undefined : timestampDate(timestamp);
}

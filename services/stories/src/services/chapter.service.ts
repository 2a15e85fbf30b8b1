import { AppError, ErrorCode } from '@inkwell/errors';
import { BATCH_ANSWER_MAX_BYTES, type BatchPage } from '@inkwell/limits';
import type { Logger } from '@inkwell/logging';
import { renderMarkdownFields } from '@inkwell/markdown';
import { CHAPTER_PAGE_TEXT_BUDGET_BYTES, countWords, type Chapter } from '../domain/chapter.js';
import { decodePosition, encodePosition, lookupIds, pageLimit } from '../domain/list.js';
import { accessTo, canSeeDraftsOf, isEntityId, READ_STORIES, type Story, type Viewer } from '../domain/story.js';
import type { ChapterChange, ChapterInStory, ChapterRepository, LatestChaptersSource } from '../repositories/chapter.repository.js';
import type { StoryRepository } from '../repositories/story.repository.js';
import type { ViewRepository } from '../repositories/view.repository.js';
import type { ReadingService } from './reading.service.js';
import { assertAuthor, type PageInput, type StoryService } from './story.service.js';

/** POST /stories/:id/chapters. */
export interface CreateChapterInput {
  title: string;
  content: string;
  authorsNote: string;
  published: boolean;
}

/** PATCH /chapters/:id: only the fields present change. */
export interface UpdateChapterInput {
  title?: string;
  content?: string;
  authorsNote?: string;
  published?: boolean;
}

/** One page of a story's chapters and the position after it ('' on the last page). */
export interface ChapterPage {
  chapters: Chapter[];
  nextAfter: string;
}

/** What the chapter rules read and write of chapters: ChapterRepository, or a memory store in unit tests. */
export type ChapterStore = Pick<ChapterRepository, 'findById' | 'findByIds' | 'listByStory' | 'listLatest' | 'create' | 'mutate'>;

/** Where a counted view of a chapter is recorded (StoryRepository writes its StoryViewed event). */
export type ViewRecorder = Pick<StoryRepository, 'recordView'>;

/** Who read which chapter lately, so a view counts once per reader and window (ViewRepository). */
export type ReadWindows = Pick<ViewRepository, 'firstReadWithinWindow'>;

/** The viewer's `read` flags of chapters (ReadingService). */
export type ReadFlags = Pick<ReadingService, 'withReadFlags'>;

const CHAPTER_ORDER = 'chapter_number.asc';
/** The most chapters ListLatestChapters answers (its proto rule says the same). */
const LATEST_CHAPTERS_MAX = 50;

/** The rules about chapters: visibility like their story's, authorship, publishing, views. */
export class ChapterService {
  constructor(
    private readonly chapters: ChapterStore,
    private readonly stories: ViewRecorder,
    private readonly storyService: StoryService,
    private readonly views: ReadWindows,
    private readonly readFlags: ReadFlags,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * GET /stories/:id/chapters: the story must be visible (as GetStory); its draft chapters are
   * listed for its author with read_stories only. With `includeContent` the chapters carry their
   * content, the page ends early at CHAPTER_PAGE_TEXT_BUDGET_BYTES of text (the rest follows
   * from `nextAfter`), and each published chapter of a published story counts a view as by
   * getChapter (docs/api/stories.md).
   */
  async listChapters(storyId: string, page: PageInput, viewer: Viewer, includeContent = false): Promise<ChapterPage> {
    const story = await this.storyService.getStory(storyId, viewer);
    const limit = pageLimit(page.pageSize);
    let afterNumber: number | undefined;
    if (page.after !== '') {
      const position = decodePosition(page.after, CHAPTER_ORDER, isEntityId);
      if (!position || position.key === null || !/^[1-9][0-9]{0,8}$/.test(position.key)) {
        throw AppError.badParameter('page[cursor]', 'The cursor does not belong to this list.', 'invalid_cursor');
      }
      afterNumber = Number(position.key);
    }
    const { chapters, more } = await this.chapters.listByStory(story.id, canSeeDraftsOf(story.authorId, viewer), limit, afterNumber, includeContent ? CHAPTER_PAGE_TEXT_BUDGET_BYTES : undefined);
    if (includeContent && story.published && viewer.userId !== story.authorId) {
      await Promise.all(chapters.filter((chapter) => chapter.published).map((chapter) => this.countView({ chapter, authorId: story.authorId, storyPublished: true }, viewer)));
    }
    const last = chapters.at(-1);
    return {
      chapters: await this.readFlags.withReadFlags(chapters, viewer),
      nextAfter: more && last ? encodePosition({ sort: CHAPTER_ORDER, key: String(last.chapterNumber), id: last.id }) : '',
    };
  }

  /**
   * The visible chapters among `ids` (without content), in their order. The answer stops within
   * its byte budget and names the ids it did not read as `deferred` (docs/api/foundation.md,
   * "Byte budgets").
   */
  async batchGetChapters(ids: readonly string[], viewer: Viewer): Promise<BatchPage<Chapter>> {
    const wanted = lookupIds(ids, isEntityId);
    const { chapters, covered } = await this.chapters.findByIds(wanted, BATCH_ANSWER_MAX_BYTES);
    const visible = chapters.filter((item) => accessOf(item, viewer) === 'visible').map((item) => item.chapter);
    return { items: await this.readFlags.withReadFlags(visible, viewer), deferred: wanted.slice(covered) };
  }

  /**
   * The newest published chapters of published stories, of one story or of one author's stories,
   * newest first (docs/api/updates.md, "Atom feeds"): at most `limit` (1–50, 0 means 50), the same
   * for every caller. An id that cannot exist lists nothing.
   */
  async listLatestChapters(source: LatestChaptersSource, limit: number): Promise<Chapter[]> {
    const id = 'storyId' in source ? source.storyId : source.authorId;
    if (!isEntityId(id)) return [];
    return this.chapters.listLatest(source, limit === 0 ? LATEST_CHAPTERS_MAX : Math.min(limit, LATEST_CHAPTERS_MAX));
  }

  /**
   * Chapter `id` as `viewer` may see it: a draft chapter, or any chapter of a draft story, only
   * for its author with read_stories (others: NOT_FOUND). Reading the content of a published
   * chapter of a published story counts a view, once per reader and chapter per 24 hours; the
   * author's own reads and callers without identity are not counted.
   */
  async getChapter(id: string, includeContent: boolean, viewer: Viewer): Promise<Chapter> {
    const found = isEntityId(id) ? await this.chapters.findById(id, includeContent) : undefined;
    if (!found) throw AppError.notFound('chapter');
    const access = accessOf(found, viewer);
    if (access === 'hidden') throw AppError.notFound('chapter');
    if (access === 'needs_scope') throw AppError.insufficientScope(READ_STORIES);
    if (includeContent && found.chapter.published && found.storyPublished && viewer.userId !== found.authorId) {
      await this.countView(found, viewer);
    }
    const [chapter] = await this.readFlags.withReadFlags([found.chapter], viewer);
    return chapter!;
  }

  /**
   * Appends a chapter to story `storyId` of the caller. Authorship is checked before the texts
   * are rendered and again under the story's lock; nothing is stored once `signal` has aborted
   * (docs/api/foundation.md, "Markdown").
   */
  async createChapter(storyId: string, input: CreateChapterInput, viewer: Viewer, signal?: AbortSignal): Promise<Chapter> {
    const title = input.title.trim();
    await this.storyService.authorizeChange(storyId, viewer);
    const [contentHtml, authorsNoteHtml] = await renderMarkdownFields([
      { source: input.content, pointer: '/data/attributes/content' },
      { source: input.authorsNote, pointer: '/data/attributes/authors_note' },
    ], { caller: viewer, signal });
    const { chapter } = await this.chapters.create(storyId, (story) => {
      assertAuthor(story, viewer);
      return {
        title,
        content: input.content,
        contentHtml,
        authorsNote: input.authorsNote,
        authorsNoteHtml,
        published: input.published,
        numWords: countWords(input.content),
        now: this.clock(),
      };
    }, signal);
    return chapter;
  }

  /**
   * Changes the fields present in `input` of chapter `id` by its story's author. Unpublishing
   * the last published chapter of a published story is refused (unpublish the story first).
   * Authorship is checked before any text is rendered and again under the locks; nothing is
   * stored once `signal` has aborted (docs/api/foundation.md, "Markdown").
   */
  async updateChapter(id: string, input: UpdateChapterInput, viewer: Viewer, signal?: AbortSignal): Promise<Chapter> {
    if (!isEntityId(id)) throw AppError.notFound('chapter');
    const change: ChapterChange = { now: this.clock() };
    if (input.title !== undefined) change.title = input.title.trim();
    if (input.content !== undefined) change.content = input.content;
    if (input.authorsNote !== undefined) change.authorsNote = input.authorsNote;
    if (change.content || change.authorsNote) await this.authorizeChange(id, viewer);
    // An absent text renders as '' at no cost; only the present ones are kept.
    const [contentHtml, authorsNoteHtml] = await renderMarkdownFields([
      { source: change.content ?? '', pointer: '/data/attributes/content' },
      { source: change.authorsNote ?? '', pointer: '/data/attributes/authors_note' },
    ], { caller: viewer, signal });
    if (change.content !== undefined) {
      change.contentHtml = contentHtml;
      change.numWords = countWords(change.content);
    }
    if (change.authorsNote !== undefined) change.authorsNoteHtml = authorsNoteHtml;
    if (input.published !== undefined) change.published = input.published;

    const changesAnything = Object.values(input).some((value) => value !== undefined);
    const updated = await this.chapters.mutate(id, (chapter, story) => {
      assertChapterAuthor(chapter.published, story.authorId, story.published, viewer);
      // An empty PATCH changes nothing, not even date_modified.
      if (!changesAnything) return { keep: true };
      if (change.published === false && chapter.published && isLastPublishedChapter(story)) {
        throw AppError.validation('/data/attributes/published', 'A published story keeps at least one published chapter: unpublish the story first.');
      }
      return { change };
    }, signal);
    return updated!;
  }

  /**
   * Refuses a change of chapter `id` by anyone but its story's author, as the change itself does
   * (see assertChapterAuthor: NOT_FOUND for none or one the caller cannot see, else
   * PERMISSION_DENIED forbidden); changes nothing. The change checks again under its locks.
   */
  async authorizeChange(id: string, viewer: Viewer): Promise<void> {
    const found = isEntityId(id) ? await this.chapters.findById(id, false) : undefined;
    if (!found) throw AppError.notFound('chapter');
    assertChapterAuthor(found.chapter.published, found.authorId, found.storyPublished, viewer);
  }

  /** Deletes chapter `id`; later chapters move up one number. */
  async deleteChapter(id: string, viewer: Viewer): Promise<void> {
    if (!isEntityId(id)) throw AppError.notFound('chapter');
    await this.chapters.mutate(id, (chapter, story) => {
      assertChapterAuthor(chapter.published, story.authorId, story.published, viewer);
      if (chapter.published && isLastPublishedChapter(story)) {
        throw new AppError(ErrorCode.INVALID_ARGUMENT, 'A published story keeps at least one published chapter: unpublish the story first.', {
          details: [{ reason: 'validation_failed', detail: 'This is the last published chapter of a published story: unpublish the story first.' }],
        });
      }
      return { delete: true };
    });
  }

  private async countView(found: ChapterInStory, viewer: Viewer): Promise<void> {
    const reader = viewer.userId !== undefined ? { userId: viewer.userId } : viewer.appId !== undefined ? { appId: viewer.appId } : undefined;
    if (!reader) return;
    const readerKey = 'userId' in reader ? `u:${reader.userId}` : `a:${reader.appId}`;
    try {
      if (await this.views.firstReadWithinWindow(found.chapter.id, readerKey)) {
        await this.stories.recordView(found.chapter.storyId, found.chapter.id, reader);
      }
    } catch (error) {
      // A lost view is better than a failed read.
      this.logger.warn({ err: error, chapterId: found.chapter.id }, 'could not count a view');
    }
  }
}

function accessOf(item: ChapterInStory, viewer: Viewer) {
  return accessTo(item.authorId, item.chapter.published && item.storyPublished, viewer);
}

function isLastPublishedChapter(story: Story): boolean {
  return story.published && story.numChapters <= 1;
}

/**
 * Authorship for chapter writes: a chapter the caller may not know about (draft of another's
 * story, or another's draft chapter) is 404; another's visible chapter is 403.
 */
function assertChapterAuthor(chapterPublished: boolean, storyAuthorId: string, storyPublished: boolean, viewer: Viewer): void {
  if (storyAuthorId === viewer.userId) return;
  if (!storyPublished || !chapterPublished) throw AppError.notFound('chapter');
  throw AppError.forbidden('Only the author can change this chapter.');
}

import { AppError, ErrorCode } from '@inkwell/errors';
import { READ_BOOKSHELVES } from '@inkwell/shelf-access';
import type { Chapter } from '../domain/chapter.js';
import { decodePosition, encodePosition, pageLimit } from '../domain/list.js';
import { READING_LIST_ORDER, type ReadingProgress } from '../domain/reading.js';
import { isEntityId, type Viewer } from '../domain/story.js';
import type { ChapterRepository } from '../repositories/chapter.repository.js';
import type { ReadingRepository } from '../repositories/reading.repository.js';
import type { PageInput } from './story.service.js';

/** What the reading rules read and write of reading progress: ReadingRepository, or a memory store in unit tests. */
export type ReadingStore = Pick<ReadingRepository, 'mark' | 'unmark' | 'listPage' | 'readChapterIds'>;

/** What the reading rules need of chapters: one chapter with its story's author and state. */
export type ChapterLookup = Pick<ChapterRepository, 'findById'>;

/** One page of a reading list and the position after it ('' on the last page). */
export interface ReadingPage {
  progress: ReadingProgress[];
  nextAfter: string;
}

/**
 * The rules of reading progress (docs/api/stories.md, "Reading progress"): who may mark which
 * chapter, whose list may be read, and which chapters show their `read` flag. The scopes
 * (write_bookshelves to mark, read_bookshelves to see) and the signed-in user are the proto's
 * access rules, checked before any of this runs.
 */
export class ReadingService {
  constructor(
    private readonly reading: ReadingStore,
    private readonly chapters: ChapterLookup,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Marks chapter `id` read for the signed-in viewer. Only a published chapter of a published
   * story: another user's draft (story or chapter) is NOT_FOUND, as by GET /chapters/:id; one's
   * own is INVALID_ARGUMENT validation_failed.
   */
  async markRead(id: string, viewer: Viewer): Promise<void> {
    const userId = signedIn(viewer);
    const found = isEntityId(id) ? await this.chapters.findById(id, false) : undefined;
    if (!found) throw AppError.notFound('chapter');
    if (!found.chapter.published || !found.storyPublished) {
      if (found.authorId !== userId) throw AppError.notFound('chapter');
      const detail = 'Only a published chapter of a published story can be marked read.';
      throw new AppError(ErrorCode.INVALID_ARGUMENT, detail, { details: [{ reason: 'validation_failed', detail }] });
    }
    await this.reading.mark(userId, found.chapter.storyId, found.chapter.id, this.clock());
  }

  /**
   * Removes the viewer's mark of chapter `id`; without one nothing changes. A chapter the viewer
   * marked stays unmarkable when it is unpublished later (it was seen); another user's draft
   * (story or chapter) the viewer never marked is NOT_FOUND, as by GET /chapters/:id.
   */
  async markUnread(id: string, viewer: Viewer): Promise<void> {
    const userId = signedIn(viewer);
    const found = isEntityId(id) ? await this.chapters.findById(id, false) : undefined;
    if (!found) throw AppError.notFound('chapter');
    const visible = (found.chapter.published && found.storyPublished) || found.authorId === userId;
    if (!visible && !(await this.reading.readChapterIds(userId, [found.chapter])).has(found.chapter.id)) throw AppError.notFound('chapter');
    await this.reading.unmark(userId, found.chapter.storyId, found.chapter.id, this.clock());
  }

  /**
   * The reading list of `userId`, who must be the viewer (another user's is NOT_FOUND, as if
   * there were none): published stories with a chapter marked read, the most recent activity
   * first, one keyset page.
   */
  async listProgress(userId: string, page: PageInput, viewer: Viewer): Promise<ReadingPage> {
    if (viewer.userId === undefined || userId !== viewer.userId) throw AppError.notFound('user');
    let after: { key: string; id: string } | undefined;
    if (page.after !== '') {
      const position = decodePosition(page.after, READING_LIST_ORDER, isEntityId);
      if (!position || position.key === null || !POSITION_TIME.test(position.key)) {
        throw AppError.badParameter('page[cursor]', 'The cursor does not belong to this list.', 'invalid_cursor');
      }
      after = { key: position.key, id: position.id };
    }
    const limit = pageLimit(page.pageSize);
    const rows = await this.reading.listPage(userId, limit, after);
    const kept = rows.slice(0, limit);
    const last = kept.at(-1);
    return {
      progress: kept.map((row) => row.progress),
      nextAfter: rows.length > limit && last ? encodePosition({ sort: READING_LIST_ORDER, key: last.position.key, id: last.position.id }) : '',
    };
  }

  /**
   * `chapters` with their `read` flag for the viewer: set only for a signed-in user holding
   * read_bookshelves (the flag is reading progress, which that scope guards); otherwise the
   * chapters as they are, without the flag.
   */
  async withReadFlags(chapters: Chapter[], viewer: Viewer): Promise<Chapter[]> {
    if (viewer.userId === undefined || !viewer.scopes.includes(READ_BOOKSHELVES) || chapters.length === 0) return chapters;
    const read = await this.reading.readChapterIds(viewer.userId, chapters);
    return chapters.map((chapter) => ({ ...chapter, read: read.has(chapter.id) }));
  }
}

/** A last activity as Postgres prints a timestamptz (`2026-06-01 10:00:00.123456+00`), the key of a reading-list position. */
const POSITION_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2}){0,2})$/;

/** The viewer's user id; the RPCs' access rule (a signed-in user) guarantees one. */
function signedIn(viewer: Viewer): string {
  if (viewer.userId === undefined) throw new AppError(ErrorCode.UNAUTHENTICATED, 'Reading progress belongs to a signed-in user.');
  return viewer.userId;
}

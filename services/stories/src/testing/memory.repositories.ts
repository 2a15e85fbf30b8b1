import { AppError } from '@inkwell/errors';
import { createRecordingLogger } from '@inkwell/logging';
import { MemorySequence } from '@inkwell/testing/memory';
import type { ShelfAccessFacts } from '@inkwell/shelf-access';
import type { Chapter } from '../domain/chapter.js';
import type { Comment, RatingValue } from '../domain/engagement.js';
import type { IdPage, ListPosition, StoryListQuery } from '../domain/story-query.js';
import { noReaderStats, type Story, type Viewer } from '../domain/story.js';
import type { Tag } from '../domain/tag.js';
import type { ChapterDecision, ChapterInStory, LatestChaptersSource, NewChapter } from '../repositories/chapter.repository.js';
import type { CommentInStory } from '../repositories/engagement.repository.js';
import type { ReadingPosition, ReadingRow } from '../repositories/reading.repository.js';
import type { NewStory, StoryDecision, StoryStats } from '../repositories/story.repository.js';
import { ChapterService, type ChapterStore, type ReadWindows, type ViewRecorder } from '../services/chapter.service.js';
import { EngagementService, type EngagementStore } from '../services/engagement.service.js';
import { ReadingService, type ReadingStore } from '../services/reading.service.js';
import { StoryStatsService, type StoryStatsStore } from '../services/story-stats.service.js';
import { StoryService, type ShelfLookup, type StorySearch, type StoryStore, type TagLookup } from '../services/story.service.js';

/** The scopes a user token can carry for the stories API: each unit test then checks the rule it names, not a scope. */
const USER_SCOPES = ['read_stories', 'write_stories', 'write_ratings', 'write_comments', 'read_bookshelves'];

/** The callers of the stories unit tests: an author (user 900), two other users and an app-only token. */
export const viewers: Readonly<Record<'author' | 'reader' | 'other' | 'app', Viewer>> = {
  author: { userId: '900', scopes: USER_SCOPES },
  reader: { userId: '901', scopes: USER_SCOPES },
  other: { userId: '902', scopes: USER_SCOPES },
  app: { appId: 'app', scopes: [] },
};

/** The first page of a list at the default size. */
export const FIRST_PAGE = { pageSize: 0, after: '' } as const;

/** A story as the memory store keeps it: its totals and chapter ids are derived on every read, as the SQL does. */
type StoredStory = Omit<Story, 'chapterIds' | 'numChapters' | 'numWords'>;

/** A shelf item of the copy of bookshelf membership. */
interface ShelfItem {
  id: string;
  bookshelfId: string;
  storyId: string;
  read: boolean;
  dateAdded: Date;
}

/**
 * The tables of the stories schema in memory, shared by the memory repositories below so that a
 * chapter write changes its story's totals as in Postgres. Ids are increasing numeric strings.
 */
export class MemoryStoriesData extends MemorySequence {
  readonly stories = new Map<string, StoredStory>();
  readonly chapters = new Map<string, Chapter>();
  readonly comments = new Map<string, Comment>();
  /** `<storyId>:<userId>` → vote. */
  readonly votes = new Map<string, RatingValue>();
  readonly tags = new Map<string, Tag>();
  readonly shelves = new Map<string, ShelfAccessFacts>();
  readonly shelfItems: ShelfItem[] = [];
  /** Counted views, as the StoryViewed events the service wrote. */
  readonly views: { storyId: string; chapterId: string; reader: { userId: string } | { appId: string } }[] = [];

  /** Stores a story by `authorId` (a draft unless `published`) as if it had been written earlier; returns its id. */
  putStory(authorId: string, overrides: Partial<Omit<StoredStory, 'id' | 'authorId'>> = {}): string {
    const id = this.nextId();
    const published = overrides.published ?? false;
    this.stories.set(id, {
      id,
      authorId,
      title: `Story ${id}`,
      shortDescription: '',
      description: '',
      descriptionHtml: '',
      status: 'incomplete',
      contentRating: 'everyone',
      published,
      ...noReaderStats(),
      datePublished: published ? new Date(Date.UTC(2026, 0, Number(id))) : null,
      dateModified: new Date(Date.UTC(2026, 0, 1)),
      dateUpdated: null,
      tagIds: [],
      ...overrides,
    });
    return id;
  }

  /** Appends a chapter (published unless said otherwise) to story `storyId`; returns its id. */
  putChapter(storyId: string, overrides: Partial<Omit<Chapter, 'id' | 'storyId' | 'chapterNumber'>> = {}): string {
    const id = this.nextId();
    const published = overrides.published ?? true;
    this.chapters.set(id, {
      id,
      storyId,
      title: `Chapter ${id}`,
      content: 'Once upon a time.',
      contentHtml: '<p>Once upon a time.</p>',
      authorsNote: '',
      authorsNoteHtml: '',
      chapterNumber: this.chaptersOf(storyId).length + 1,
      published,
      numWords: 4,
      numViews: 0,
      datePublished: published ? new Date(Date.UTC(2026, 0, 1)) : null,
      dateModified: new Date(Date.UTC(2026, 0, 1)),
      ...overrides,
    });
    return id;
  }

  /** Story `id` as readStory gives it: published chapter ids, plus all of them for `draftsOf` the author (or `allChapters`). */
  read(id: string, draftsOf: string | null, allChapters = false): Story | undefined {
    const stored = this.stories.get(id);
    if (!stored) return undefined;
    const chapters = this.chaptersOf(id);
    const published = chapters.filter((chapter) => chapter.published);
    const shown = allChapters || draftsOf === stored.authorId ? chapters : published;
    return {
      ...stored,
      tagIds: [...stored.tagIds],
      numChapters: published.length,
      numWords: published.reduce((sum, chapter) => sum + chapter.numWords, 0),
      chapterIds: shown.map((chapter) => chapter.id),
    };
  }

  /** Story `id` with all its chapter ids, as lockStory gives it; NOT_FOUND when there is none. */
  lock(id: string): Story {
    const story = this.read(id, null, true);
    if (!story) throw AppError.notFound('story');
    return story;
  }

  /** The chapters of story `storyId` in chapter order. */
  chaptersOf(storyId: string): Chapter[] {
    return [...this.chapters.values()].filter((chapter) => chapter.storyId === storyId).sort((a, b) => a.chapterNumber - b.chapterNumber);
  }

  /** The stories `query` matches (every filter but its page), in its order, each with its list position. */
  matching(query: Omit<StoryListQuery, 'limit' | 'after'>): { id: string; position: ListPosition }[] {
    const onShelf = query.bookshelf ? this.shelfItems.filter((item) => item.bookshelfId === query.bookshelf!.id && (!query.bookshelf!.unreadOnly || !item.read)) : undefined;
    const rows = [...this.stories.keys()].flatMap((id) => {
      const story = this.read(id, null)!;
      if (!matches(story, query)) return [];
      if (!onShelf) return [{ id, position: positionOf(story, query.sort.field) }];
      const item = onShelf.find((candidate) => candidate.storyId === id);
      if (!item) return [];
      return [{ id, position: query.sort.field === 'date_added' ? { key: String(item.dateAdded.getTime()), id: item.id } : positionOf(story, query.sort.field) }];
    });
    const direction = query.sort.direction === 'asc' ? 1 : -1;
    return rows.sort((a, b) => comparePositions(a.position, b.position, direction));
  }

  /** One keyset page of `query`'s matches after `query.after`. */
  page(query: StoryListQuery): IdPage {
    const direction = query.sort.direction === 'asc' ? 1 : -1;
    const all = this.matching(query);
    const rest = query.after ? all.filter((row) => comparePositions(row.position, query.after!, direction) > 0) : all;
    const shown = rest.slice(0, query.limit);
    const page: IdPage = { ids: shown.map((row) => row.id), positions: shown.map((row) => row.position) };
    if (rest.length > query.limit) page.next = shown.at(-1)!.position;
    return page;
  }
}

function matches(story: Story, query: Omit<StoryListQuery, 'limit' | 'after'>): boolean {
  if (query.publication === 'published' && !story.published) return false;
  if (query.publication === 'drafts' && story.published) return false;
  if (query.ids && !query.ids.includes(story.id)) return false;
  if (query.authorIds !== undefined && !query.authorIds.includes(story.authorId)) return false;
  if (query.numWordsMin !== undefined && story.numWords < query.numWordsMin) return false;
  if (query.numWordsMax !== undefined && story.numWords > query.numWordsMax) return false;
  if (query.status && story.status !== query.status) return false;
  if (query.datePublishedMin && (!story.datePublished || story.datePublished < query.datePublishedMin)) return false;
  if (query.datePublishedMax && (!story.datePublished || story.datePublished > query.datePublishedMax)) return false;
  if (query.dateUpdatedMin && (!story.dateUpdated || story.dateUpdated < query.dateUpdatedMin)) return false;
  if (query.dateUpdatedMax && (!story.dateUpdated || story.dateUpdated > query.dateUpdatedMax)) return false;
  if (query.tagIds && !query.tagIds.every((tagId) => story.tagIds.includes(tagId))) return false;
  if (query.excludedTagIds && query.excludedTagIds.some((tagId) => story.tagIds.includes(tagId))) return false;
  if (query.contentRatings && !query.contentRatings.includes(story.contentRating)) return false;
  if (query.text !== undefined && !`${story.title} ${story.shortDescription} ${story.description}`.toLowerCase().includes(query.text.toLowerCase())) return false;
  return true;
}

/** The sort value of `story` as a number (dates in ms), null when it has none (sorted last either way, as in SQL). */
function positionOf(story: Story, field: StoryListQuery['sort']['field']): ListPosition {
  const values: Partial<Record<typeof field, number | null>> = {
    date_published: story.datePublished?.getTime() ?? null,
    date_modified: story.dateModified.getTime(),
    date_updated: story.dateUpdated?.getTime() ?? null,
    hotness: story.hotness,
    rating: story.rating,
    num_words: story.numWords,
    num_views: story.numViews,
    num_comments: story.numComments,
    num_likes: story.numLikes,
    num_dislikes: story.numDislikes,
    relevance: 1,
  };
  const value = values[field] ?? null;
  return { key: value === null ? null : String(value), id: story.id };
}

function comparePositions(a: ListPosition, b: ListPosition, direction: 1 | -1): number {
  if (a.key !== b.key) {
    if (a.key === null) return 1;
    if (b.key === null) return -1;
    return (Number(a.key) - Number(b.key)) * direction;
  }
  return (Number(a.id) - Number(b.id)) * direction;
}

/** StoryRepository in memory: reads ignore byte budgets (every story fits), writes apply the decision or nothing. */
export class MemoryStoryRepository implements StoryStore, ViewRecorder, StoryStatsStore {
  constructor(private readonly data: MemoryStoriesData) {}

  async findById(id: string, draftsOf: string | null): Promise<Story | undefined> {
    return this.data.read(id, draftsOf);
  }

  async findWithinBudget(ids: readonly string[], draftsOf: string | null): Promise<{ stories: Story[]; covered: number }> {
    return { stories: [...new Set(ids)].flatMap((id) => this.data.read(id, draftsOf) ?? []), covered: ids.length };
  }

  async listPage(query: StoryListQuery): Promise<IdPage> {
    return this.data.page(query);
  }

  async create(story: NewStory, signal?: AbortSignal): Promise<Story> {
    signal?.throwIfAborted();
    const { authorId, now, tagIds, ...texts } = story;
    return this.data.lock(this.data.putStory(authorId, { ...texts, dateModified: now, tagIds: [...tagIds] }));
  }

  async mutate(id: string, decide: (current: Story) => StoryDecision, signal?: AbortSignal): Promise<Story | undefined> {
    const decision = decide(this.data.lock(id));
    signal?.throwIfAborted();
    if ('delete' in decision) {
      for (const chapter of this.data.chaptersOf(id)) this.data.chapters.delete(chapter.id);
      for (const comment of [...this.data.comments.values()]) if (comment.storyId === id) this.data.comments.delete(comment.id);
      this.data.stories.delete(id);
      return undefined;
    }
    const before = this.data.stories.get(id)!;
    const { dateModified, datePublished, ...change } = decision.change;
    const defined = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
    this.data.stories.set(id, { ...before, ...defined, dateModified, datePublished: before.datePublished ?? datePublished ?? null });
    return this.data.lock(id);
  }

  async recordView(storyId: string, chapterId: string, reader: { userId: string } | { appId: string }): Promise<void> {
    this.data.views.push({ storyId, chapterId, reader });
  }

  /** Adds views to the story's chapter; another story's chapter is left alone. The transaction is the caller's (none here). */
  async addChapterViews(_tx: unknown, storyId: string, chapterId: string, views: number): Promise<void> {
    const chapter = this.data.chapters.get(chapterId);
    if (chapter?.storyId === storyId) chapter.numViews += views;
  }

  /** Replaces the reader-driven values of the story with `update(current)`; a missing story is ignored. */
  async applyStats(_tx: unknown, storyId: string, update: (current: StoryStats) => StoryStats): Promise<void> {
    const story = this.data.stories.get(storyId);
    if (!story) return;
    const next = update({ views: story.numViews, likes: story.numLikes, dislikes: story.numDislikes, comments: story.numComments, rating: story.rating, hotness: story.hotness, published: story.published });
    Object.assign(story, { numViews: next.views, numLikes: next.likes, numDislikes: next.dislikes, numComments: next.comments, rating: next.rating, hotness: next.hotness });
  }
}

/** ChapterRepository in memory: chapters numbered 1..n per story; a delete moves later ones up. */
export class MemoryChapterRepository implements ChapterStore {
  constructor(private readonly data: MemoryStoriesData) {}

  async findById(id: string, withContent: boolean): Promise<ChapterInStory | undefined> {
    const chapter = this.data.chapters.get(id);
    return chapter && this.inStory(chapter, withContent);
  }

  async findByIds(ids: readonly string[]): Promise<{ chapters: ChapterInStory[]; covered: number }> {
    return { chapters: ids.flatMap((id) => { const chapter = this.data.chapters.get(id); return chapter ? [this.inStory(chapter, false)] : []; }), covered: ids.length };
  }

  async listByStory(storyId: string, withDrafts: boolean, limit: number, afterNumber: number | undefined, textBudgetBytes?: number): Promise<{ chapters: Chapter[]; more: boolean }> {
    const rest = this.data.chaptersOf(storyId).filter((chapter) => (chapter.published || withDrafts) && chapter.chapterNumber > (afterNumber ?? 0));
    return { chapters: rest.slice(0, limit).map((chapter) => withText(chapter, textBudgetBytes !== undefined)), more: rest.length > limit };
  }

  async listLatest(source: LatestChaptersSource, limit: number): Promise<Chapter[]> {
    const visible = [...this.data.chapters.values()].filter((chapter) => {
      const story = this.data.stories.get(chapter.storyId);
      return chapter.published && story?.published === true && ('storyId' in source ? story.id === source.storyId : story.authorId === source.authorId);
    });
    const newestFirst = (a: Chapter, b: Chapter) => (b.datePublished?.getTime() ?? 0) - (a.datePublished?.getTime() ?? 0) || Number(b.id) - Number(a.id);
    return visible.sort(newestFirst).slice(0, limit).map((chapter) => withText(chapter, false));
  }

  async create(storyId: string, decide: (story: Story) => NewChapter, signal?: AbortSignal): Promise<{ chapter: Chapter; story: Story }> {
    const input = decide(this.data.lock(storyId));
    signal?.throwIfAborted();
    const chapter: Chapter = {
      id: this.data.nextId(),
      storyId,
      title: input.title,
      content: input.content,
      contentHtml: input.contentHtml,
      authorsNote: input.authorsNote,
      authorsNoteHtml: input.authorsNoteHtml,
      chapterNumber: this.data.chaptersOf(storyId).length + 1,
      published: input.published,
      numWords: input.numWords,
      numViews: 0,
      datePublished: input.published ? input.now : null,
      dateModified: input.now,
    };
    this.data.chapters.set(chapter.id, chapter);
    this.touchStory(storyId, input.now, input.published);
    return { chapter: { ...chapter }, story: this.data.lock(storyId) };
  }

  async mutate(id: string, decide: (chapter: Chapter, story: Story) => ChapterDecision, signal?: AbortSignal): Promise<Chapter | undefined> {
    const before = this.data.chapters.get(id);
    if (!before) throw AppError.notFound('chapter');
    const decision = decide({ ...before }, this.data.lock(before.storyId));
    signal?.throwIfAborted();
    if ('keep' in decision) return { ...before };
    if ('delete' in decision) {
      this.data.chapters.delete(id);
      for (const later of this.data.chaptersOf(before.storyId)) if (later.chapterNumber > before.chapterNumber) later.chapterNumber -= 1;
      this.touchStory(before.storyId, new Date(), false);
      return undefined;
    }
    const { now, ...change } = decision.change;
    const defined = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
    const after: Chapter = { ...before, ...defined, dateModified: now };
    if (after.published) after.datePublished = before.datePublished ?? now;
    this.data.chapters.set(id, after);
    this.touchStory(before.storyId, now, after.published && !before.published);
    return { ...after };
  }

  private inStory(chapter: Chapter, withContent: boolean): ChapterInStory {
    const story = this.data.stories.get(chapter.storyId)!;
    return { chapter: withText(chapter, withContent), authorId: story.authorId, storyPublished: story.published };
  }

  private touchStory(storyId: string, now: Date, published: boolean): void {
    const story = this.data.stories.get(storyId)!;
    this.data.stories.set(storyId, { ...story, dateModified: now, dateUpdated: published ? now : story.dateUpdated });
  }
}

function withText(chapter: Chapter, withContent: boolean): Chapter {
  if (withContent) return { ...chapter };
  const { content: _content, contentHtml: _contentHtml, ...rest } = chapter;
  return rest;
}

/** EngagementRepository in memory: one vote per user and story, comments oldest first. */
export class MemoryEngagementRepository implements EngagementStore {
  constructor(private readonly data: MemoryStoriesData) {}

  async setVote(storyId: string, userId: string, value: RatingValue | undefined, check: (story: Story) => void): Promise<RatingValue | undefined> {
    check(this.data.lock(storyId));
    const key = `${storyId}:${userId}`;
    if (value === undefined) this.data.votes.delete(key);
    else this.data.votes.set(key, value);
    return value;
  }

  async listComments(storyId: string, limit: number, afterId: string | undefined, hiddenAuthorIds: readonly string[] = []): Promise<{ comments: Comment[]; more: boolean }> {
    const rest = [...this.data.comments.values()]
      .filter((comment) => comment.storyId === storyId && Number(comment.id) > Number(afterId ?? 0) && !hiddenAuthorIds.includes(comment.authorId))
      .sort((a, b) => Number(a.id) - Number(b.id));
    return { comments: rest.slice(0, limit), more: rest.length > limit };
  }

  async createComment(storyId: string, comment: { authorId: string; content: string; contentHtml: string }, check: (story: Story) => void, signal?: AbortSignal): Promise<Comment> {
    check(this.data.lock(storyId));
    signal?.throwIfAborted();
    const created: Comment = { id: this.data.nextId(), storyId, ...comment, datePosted: new Date() };
    this.data.comments.set(created.id, created);
    return { ...created };
  }

  async findComment(id: string): Promise<CommentInStory | undefined> {
    const comment = this.data.comments.get(id);
    const story = comment && this.data.stories.get(comment.storyId);
    return comment && story && { comment: { ...comment }, storyAuthorId: story.authorId, storyPublished: story.published };
  }

  async deleteComment(id: string, check: (found: CommentInStory) => void): Promise<void> {
    const comment = this.data.comments.get(id);
    if (!comment) throw AppError.notFound('comment');
    const story = this.data.stories.get(comment.storyId)!;
    check({ comment: { ...comment }, storyAuthorId: story.authorId, storyPublished: story.published });
    this.data.comments.delete(id);
  }
}

/** The tag catalogue in memory. */
export class MemoryTagRepository implements TagLookup {
  constructor(private readonly data: MemoryStoriesData) {}

  async findByIds(ids: readonly string[]): Promise<Tag[]> {
    return [...new Set(ids)].flatMap((id) => this.data.tags.get(id) ?? []);
  }
}

/** The copy of bookshelf membership in memory. */
export class MemoryShelfCopy implements ShelfLookup {
  constructor(private readonly data: MemoryStoriesData) {}

  async findShelf(id: string): Promise<ShelfAccessFacts | undefined> {
    return this.data.shelves.get(id);
  }
}

/** The search index in memory: always up to date with the published stories, totals exact. */
export class MemoryStoryIndex implements StorySearch {
  constructor(private readonly data: MemoryStoriesData) {}

  async search(query: StoryListQuery): Promise<IdPage> {
    return { ...this.data.page(query), total: { value: this.data.matching(query).length, lowerBound: false } };
  }
}

/** The read windows of views in memory: the first read of a chapter by a reader counts, later ones do not. */
export class MemoryReadWindows implements ReadWindows {
  readonly #seen = new Set<string>();

  async firstReadWithinWindow(chapterId: string, reader: string): Promise<boolean> {
    const key = `${chapterId}:${reader}`;
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    return true;
  }
}

/**
 * Reading progress in memory, as ReadingRepository keeps it: marks per user and chapter, the last
 * activity per user and story, counts over the chapters published now.
 */
export class MemoryReadingStore implements ReadingStore {
  /** `<userId>:<chapterId>` → when it was marked, with its story. */
  readonly marks = new Map<string, { storyId: string; chapterId: string; userId: string; at: Date }>();
  /** `<userId>:<storyId>` → last activity. */
  readonly activity = new Map<string, Date>();

  constructor(private readonly data: MemoryStoriesData) {}

  async mark(userId: string, storyId: string, chapterId: string, now: Date): Promise<void> {
    this.marks.set(`${userId}:${chapterId}`, { storyId, chapterId, userId, at: now });
    this.activity.set(`${userId}:${storyId}`, now);
  }

  async unmark(userId: string, storyId: string, chapterId: string, now: Date): Promise<void> {
    if (!this.marks.delete(`${userId}:${chapterId}`)) return;
    const marked = [...this.marks.values()].some((mark) => mark.userId === userId && mark.storyId === storyId);
    if (marked) this.activity.set(`${userId}:${storyId}`, now);
    else this.activity.delete(`${userId}:${storyId}`);
  }

  async readChapterIds(userId: string, chapters: readonly { id: string }[]): Promise<Set<string>> {
    return new Set(chapters.filter((chapter) => this.marks.has(`${userId}:${chapter.id}`)).map((chapter) => chapter.id));
  }

  async listPage(userId: string, limit: number, after?: ReadingPosition): Promise<ReadingRow[]> {
    const rows = [...this.activity.entries()].flatMap(([key, at]) => {
      const [owner, storyId] = key.split(':') as [string, string];
      if (owner !== userId || this.data.stories.get(storyId)?.published !== true) return [];
      const published = this.data.chaptersOf(storyId).filter((chapter) => chapter.published);
      const read = published.filter((chapter) => this.marks.has(`${userId}:${chapter.id}`));
      const latest = [...read].sort((a, b) => this.marks.get(`${userId}:${b.id}`)!.at.getTime() - this.marks.get(`${userId}:${a.id}`)!.at.getTime() || b.chapterNumber - a.chapterNumber)[0];
      const next = published.find((chapter) => !this.marks.has(`${userId}:${chapter.id}`));
      return [{
        progress: {
          storyId,
          lastChapterReadId: latest?.id ?? null,
          nextChapterId: next?.id ?? null,
          numChaptersRead: read.length,
          numUnreadChapters: published.length - read.length,
          dateLastRead: at,
        },
        position: { key: at.toISOString(), id: storyId },
      }];
    });
    const newestFirst = (a: ReadingRow, b: ReadingRow) => b.progress.dateLastRead.getTime() - a.progress.dateLastRead.getTime() || Number(b.position.id) - Number(a.position.id);
    const sorted = rows.sort(newestFirst);
    const rest = after ? sorted.filter((row) => newestFirst(row, { progress: { dateLastRead: new Date(after.key) }, position: after } as ReadingRow) > 0) : sorted;
    return rest.slice(0, limit + 1);
  }
}

/** The services of the stories domain over one fresh memory store, and the store itself to arrange and inspect. */
export interface MemoryStories {
  data: MemoryStoriesData;
  stories: StoryService;
  chapters: ChapterService;
  engagement: EngagementService;
  stats: StoryStatsService;
  reading: ReadingService;
}

/** Wires the services of the stories domain to memory repositories, as main.ts wires the real ones. */
export function memoryStories(clock: () => Date = () => new Date()): MemoryStories {
  const data = new MemoryStoriesData();
  const storyRepository = new MemoryStoryRepository(data);
  const stories = new StoryService(storyRepository, new MemoryTagRepository(data), new MemoryShelfCopy(data), new MemoryStoryIndex(data), clock);
  const chapterRepository = new MemoryChapterRepository(data);
  const reading = new ReadingService(new MemoryReadingStore(data), chapterRepository, clock);
  const chapters = new ChapterService(chapterRepository, storyRepository, stories, new MemoryReadWindows(), reading, createRecordingLogger('stories-unit').logger, clock);
  return { data, stories, chapters, engagement: new EngagementService(new MemoryEngagementRepository(data), stories), stats: new StoryStatsService(storyRepository), reading };
}

import { AppError } from '@inkwell/errors';
import { BATCH_ANSWER_MAX_BYTES, countWithinBudget, LIST_PAGE_MAX_BYTES, type BatchPage } from '@inkwell/limits';
import { renderMarkdown } from '@inkwell/markdown';
import { ownsShelf, READ_BOOKSHELVES, shelfAccess } from '@inkwell/shelf-access';
import { publicationHeat } from '../domain/hotness.js';
import { decodePosition, DEFAULT_STORY_SORT, encodePosition, lookupIds, pageLimit, sortName, type Sort } from '../domain/list.js';
import type { IdPage, ListPosition, ListTotal, Publication, StoryListQuery, TagCount } from '../domain/story-query.js';
import { accessTo, canSeeDraftsOf, isEntityId, READ_STORIES, type ContentRating, type Story, type StoryStatus, type Viewer } from '../domain/story.js';
import type { BookshelfCopyRepository } from '../repositories/bookshelf-copy.repository.js';
import type { StoryIndexRepository } from '../repositories/story-index.repository.js';
import type { StoryChange, StoryRepository } from '../repositories/story.repository.js';
import type { TagRepository } from '../repositories/tag.repository.js';

/**
 * The filters of GET /stories as the transport decoded them; unset fields filter nothing. The
 * value filters mean what they mean in a StoryListQuery; `ids` and `tagIds` may repeat an id, and
 * the shelf is named by id until the service has checked it.
 */
export type StoryFilterInput = Pick<StoryListQuery, 'authorIds' | 'numWordsMin' | 'numWordsMax' | 'status' | 'datePublishedMin' | 'datePublishedMax' | 'dateUpdatedMin' | 'dateUpdatedMax'> & {
  ids: string[];
  tagIds: string[];
  /** Tags the stories must not carry; may repeat an id, may name a tag of `tagIds` (then nothing matches). */
  excludedTagIds?: string[];
  /** What the caller hides (docs/api/safety.md): stories by these authors or carrying these tags are left out. */
  hiddenAuthorIds?: string[];
  hiddenTagIds?: string[];
  /** Any of these ratings; may repeat one. */
  contentRatings?: ContentRating[];
  bookshelfId?: string;
  unread?: boolean;
};

/** A page request: size (0 = default) and the opaque position of the previous page ('' = first). */
export interface PageInput {
  pageSize: number;
  after: string;
}

/** GET /stories. */
export interface ListStoriesInput extends PageInput {
  /** '' for no search. */
  query: string;
  filter: StoryFilterInput;
  /** undefined: the default sort (-date_published). */
  sort?: Sort;
  /** Count the whole list's stories per tag (`facets=tags`). */
  countTags?: boolean;
}

/** GET /users/:id/stories. */
export interface ListUserStoriesInput extends PageInput {
  userId: string;
  published?: boolean;
  sort?: Sort;
}

/** One page of stories and the position after it ('' on the last page). */
export interface StoryPage {
  stories: Story[];
  nextAfter: string;
  /** GET /stories without a bookshelf: the size of the whole list. */
  total?: ListTotal;
  /** With `countTags`: stories of the whole list per tag, most first (ties by tag id). */
  tagCounts?: TagCount[];
}

/** POST /stories. */
export interface CreateStoryInput {
  title: string;
  shortDescription: string;
  description: string;
  status?: StoryStatus;
  contentRating?: ContentRating;
  published: boolean;
  tagIds: string[];
}

/** PATCH /stories/:id: only the fields present change. */
export interface UpdateStoryInput {
  title?: string;
  shortDescription?: string;
  description?: string;
  status?: StoryStatus;
  contentRating?: ContentRating;
  published?: boolean;
  tagIds?: string[];
}

/** What the story rules read and write of stories: StoryRepository, or a memory store in unit tests. */
export type StoryStore = Pick<StoryRepository, 'findById' | 'findWithinBudget' | 'listPage' | 'create' | 'mutate'>;

/** What the story rules need of the tag catalogue: whether tags exist. */
export type TagLookup = Pick<TagRepository, 'findByIds'>;

/** What `filter[bookshelf]` needs of the copy of bookshelf membership: a shelf's owner and privacy. */
export type ShelfLookup = Pick<BookshelfCopyRepository, 'findShelf'>;

/** What GET /stories without a bookshelf needs of the search index. */
export type StorySearch = Pick<StoryIndexRepository, 'search'>;

/**
 * The rules about stories: visibility (docs/api/stories.md, "Endpoints"), publishing
 * (docs/api/stories.md, "Publishing rules"), lists (docs/api/stories.md, "GET /stories"). Who may
 * call and the limits of each value (docs/api/stories.md, "Writing") are the proto's, checked
 * before any of this runs (docs/api/foundation.md, "One contract").
 */
export class StoryService {
  constructor(
    private readonly stories: StoryStore,
    private readonly tags: TagLookup,
    private readonly shelves: ShelfLookup,
    private readonly index: StorySearch,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Story `id` as `viewer` may see it: NOT_FOUND for none or another's draft; own draft needs read_stories. */
  async getStory(id: string, viewer: Viewer): Promise<Story> {
    const story = isEntityId(id) ? await this.stories.findById(id, draftsOf(viewer)) : undefined;
    if (!story) throw AppError.notFound('story');
    const access = accessTo(story.authorId, story.published, viewer);
    if (access === 'hidden') throw AppError.notFound('story');
    if (access === 'needs_scope') throw AppError.insufficientScope(READ_STORIES);
    return story;
  }

  /**
   * Story `id` as stored, whoever may see it, for a write's own rule (authorship, published) to
   * look at before any expensive step such as rendering Markdown (docs/api/foundation.md,
   * "Markdown"); NOT_FOUND when there is none. The write checks its rule again under its lock.
   */
  async storyForWrite(id: string): Promise<Story> {
    const story = isEntityId(id) ? await this.stories.findById(id, null) : undefined;
    if (!story) throw AppError.notFound('story');
    return story;
  }

  /**
   * Refuses a write to story `id` (or one of its chapters) by anyone but its author, as the write
   * itself does (see assertAuthor: NOT_FOUND for none or another's draft, else PERMISSION_DENIED
   * forbidden); changes nothing. The write checks again under its lock.
   */
  async authorizeChange(id: string, viewer: Viewer): Promise<void> {
    if (!isEntityId(id)) throw AppError.notFound('story');
    assertAuthor(await this.storyForWrite(id), viewer);
  }

  /**
   * The visible stories among `ids`, in their order; others (missing, drafts not shown) left
   * out. The answer stops within its byte budget; the ids it did not read are `deferred`, for the
   * caller to ask for again (docs/api/foundation.md, "Byte budgets").
   */
  async batchGetStories(ids: readonly string[], viewer: Viewer): Promise<BatchPage<Story>> {
    const wanted = lookupIds(ids, isEntityId);
    const { stories, covered } = await this.stories.findWithinBudget(wanted, draftsOf(viewer), BATCH_ANSWER_MAX_BYTES);
    return { items: stories.filter((story) => accessTo(story.authorId, story.published, viewer) === 'visible'), deferred: wanted.slice(covered) };
  }

  /**
   * GET /stories: published stories only, filtered, searched, sorted, one keyset page, answered
   * from the search index (docs/api/stories.md, "Search"; UNAVAILABLE while it is down) with its
   * total and, when asked, its tag counts. With a bookshelf the list is answered from Postgres
   * ("Bookshelves in story lists"): a shelf the viewer may not see matches nothing; one's own
   * private shelf needs read_bookshelves; filter[unread] needs a shelf the viewer owns; sort
   * date_added needs a shelf; there is no total and tag counts are refused.
   */
  async listStories(input: ListStoriesInput, viewer: Viewer): Promise<StoryPage> {
    const filter = input.filter;
    const text = input.query.trim();
    const sort = input.sort ?? DEFAULT_STORY_SORT;
    if (sort.field === 'relevance' && text === '') throw AppError.badParameter('sort', 'Sorting by relevance needs a search query (query=…).', 'invalid_sort');
    if (sort.field === 'date_added' && filter.bookshelfId === undefined) {
      throw AppError.badParameter('sort', 'Sorting by date_added needs a bookshelf (filter[bookshelf]=…).', 'invalid_sort');
    }

    const query: Omit<StoryListQuery, 'limit' | 'after'> = { publication: 'published', sort };
    if (filter.ids.length > 0) query.ids = [...new Set(filter.ids)];
    if (filter.authorIds !== undefined && filter.authorIds.length > 0) query.authorIds = [...new Set(filter.authorIds)];
    if (filter.numWordsMin !== undefined) query.numWordsMin = filter.numWordsMin;
    if (filter.numWordsMax !== undefined) query.numWordsMax = filter.numWordsMax;
    if (filter.datePublishedMin) query.datePublishedMin = filter.datePublishedMin;
    if (filter.datePublishedMax) query.datePublishedMax = filter.datePublishedMax;
    if (filter.dateUpdatedMin) query.dateUpdatedMin = filter.dateUpdatedMin;
    if (filter.dateUpdatedMax) query.dateUpdatedMax = filter.dateUpdatedMax;
    if (filter.status) query.status = filter.status;
    if (filter.tagIds.length > 0) query.tagIds = [...new Set(filter.tagIds)];
    const excludedTagIds = [...(filter.excludedTagIds ?? []), ...(filter.hiddenTagIds ?? [])];
    if (excludedTagIds.length > 0) query.excludedTagIds = [...new Set(excludedTagIds)];
    if (filter.hiddenAuthorIds !== undefined && filter.hiddenAuthorIds.length > 0) query.excludedAuthorIds = [...new Set(filter.hiddenAuthorIds)];
    if (filter.contentRatings !== undefined && filter.contentRatings.length > 0) query.contentRatings = [...new Set(filter.contentRatings)];
    if (text !== '') query.text = text;
    if (filter.bookshelfId === undefined) {
      if (filter.unread !== undefined) throw unreadNeedsOwnShelf();
      return this.searchPage(query, input, viewer);
    }
    if (input.countTags) throw AppError.badParameter('facets', 'Tag counts are not available together with filter[bookshelf].');
    const shelf = await this.shelves.findShelf(filter.bookshelfId);
    const access = shelfAccess(shelf, viewer);
    if (access === 'needs_scope') throw AppError.insufficientScope(READ_BOOKSHELVES);
    if (filter.unread !== undefined && !ownsShelf(shelf, viewer)) throw unreadNeedsOwnShelf();
    if (access === 'hidden') return this.nothing(input, sort);
    query.bookshelf = { id: filter.bookshelfId, unreadOnly: filter.unread === true };
    return this.page(query, input, viewer);
  }

  /**
   * GET /users/:id/stories: the author's published stories, plus their drafts for the author
   * holding read_stories. `published: false` asks for drafts: another user's are never shown
   * (empty list), one's own need read_stories (PERMISSION_DENIED otherwise).
   */
  async listUserStories(input: ListUserStoriesInput, viewer: Viewer): Promise<StoryPage> {
    if (!isEntityId(input.userId)) throw AppError.notFound('user');
    const sort = input.sort ?? DEFAULT_STORY_SORT;
    if (sort.field === 'relevance' || sort.field === 'date_added') {
      throw AppError.badParameter('sort', `sort=${sort.field} is not available on a user's stories.`, 'invalid_sort');
    }
    const own = viewer.userId === input.userId;
    if (input.published === false && own && !viewer.scopes.includes(READ_STORIES)) throw AppError.insufficientScope(READ_STORIES);
    const seesDrafts = canSeeDraftsOf(input.userId, viewer);
    let publication: Publication;
    if (input.published === true || !seesDrafts) publication = 'published';
    else publication = input.published === false ? 'drafts' : 'all';
    if (input.published === false && !seesDrafts) return this.nothing(input, sort);
    return this.page({ publication, authorIds: [input.userId], sort }, input, viewer);
  }

  /** Creates a draft story by the calling user (the request's rules keep `published` false). */
  async createStory(input: CreateStoryInput, viewer: Viewer, signal?: AbortSignal): Promise<Story> {
    const authorId = writerOf(viewer);
    const tagIds = [...new Set(input.tagIds)];
    await this.checkTagsExist(tagIds);
    const descriptionHtml = await renderMarkdown(input.description, { pointer: '/data/attributes/description', caller: viewer, signal });
    return this.stories.create({
      authorId,
      title: input.title.trim(),
      shortDescription: input.shortDescription,
      description: input.description,
      descriptionHtml,
      status: input.status ?? 'incomplete',
      contentRating: input.contentRating ?? 'everyone',
      tagIds,
      now: this.clock(),
    }, signal);
  }

  /**
   * Changes the fields present in `input` of story `id` by its author. Publishing needs a
   * published chapter and sets date_published the first time; unpublishing is always allowed.
   * Authorship is checked before a description is rendered and again under the lock; nothing is
   * stored once `signal` has aborted (docs/api/foundation.md, "Markdown").
   */
  async updateStory(id: string, input: UpdateStoryInput, viewer: Viewer, signal?: AbortSignal): Promise<Story> {
    if (!isEntityId(id)) throw AppError.notFound('story');
    const change: StoryChange = { dateModified: this.clock() };
    if (input.title !== undefined) change.title = input.title.trim();
    if (input.shortDescription !== undefined) change.shortDescription = input.shortDescription;
    if (input.description !== undefined) change.description = input.description;
    if (input.tagIds !== undefined) change.tagIds = [...new Set(input.tagIds)];
    if (change.tagIds) await this.checkTagsExist(change.tagIds);
    if (change.description) await this.authorizeChange(id, viewer);
    if (change.description !== undefined) change.descriptionHtml = await renderMarkdown(change.description, { pointer: '/data/attributes/description', caller: viewer, signal });
    if (input.status !== undefined) change.status = input.status;
    if (input.contentRating !== undefined) change.contentRating = input.contentRating;
    if (input.published !== undefined) change.published = input.published;

    const changesAnything = Object.values(input).some((value) => value !== undefined);
    const updated = await this.stories.mutate(id, (current) => {
      assertAuthor(current, viewer);
      // An empty PATCH changes nothing, not even date_modified.
      if (!changesAnything) return { change: { dateModified: current.dateModified } };
      if (change.published === true && !current.published) {
        if (current.numChapters === 0) {
          throw AppError.validation('/data/attributes/published', 'A story needs at least one published chapter before it can be published.');
        }
        if (current.datePublished === null) {
          change.datePublished = change.dateModified;
          change.hotness = publicationHeat(change.dateModified);
        }
      }
      return { change };
    }, signal);
    return this.visibleAfterWrite(updated!, viewer);
  }

  /** Deletes story `id` (with its chapters) by its author. */
  async deleteStory(id: string, viewer: Viewer): Promise<void> {
    if (!isEntityId(id)) throw AppError.notFound('story');
    await this.stories.mutate(id, (current) => {
      assertAuthor(current, viewer);
      return { delete: true };
    });
  }

  private async page(query: Omit<StoryListQuery, 'limit' | 'after'>, input: PageInput, viewer: Viewer): Promise<StoryPage> {
    const limit = this.limit(input);
    const after = this.position(input, query.sort);
    const page: IdPage = await this.stories.listPage({ ...query, limit, ...(after ? { after } : {}) });
    const { stories: found, next } = await this.readWithinBudget(page, viewer);
    // A story deleted between the two reads is missing from this page; one (un)published in
    // between is left out too, so a list never shows what its publication filter excludes.
    const stories = found.filter((story) => (query.publication === 'published' ? story.published : query.publication === 'drafts' ? !story.published : true));
    const sort = sortName(query.sort);
    return { stories, nextAfter: next ? encodePosition({ sort, key: next.key, id: next.id }) : '' };
  }

  /**
   * One page of a list answered from the search index (docs/api/stories.md, "Search"): ids,
   * positions and the stories themselves as the index holds them, within the page's byte budget.
   * Read from Postgres by id in that order instead when the index does not carry every story's
   * texts (long descriptions) or when the viewer is the author of one with read_stories (whose
   * chapter ids include their drafts); a story unpublished or deleted since the index last heard
   * of it is then left out of the page.
   */
  private async searchPage(query: Omit<StoryListQuery, 'limit' | 'after'>, input: ListStoriesInput, viewer: Viewer): Promise<StoryPage> {
    const limit = this.limit(input);
    const after = this.position(input, query.sort);
    // Index positions are a number (the sort value or score) and a story id.
    if (after && ((after.key !== null && !Number.isFinite(Number(after.key))) || !isEntityId(after.id))) throw invalidCursor();
    const page = await this.index.search({ ...query, limit, ...(after ? { after } : {}) }, input.countTags === true);
    const { stories: found, next } = listedWithinBudget(page, draftsOf(viewer)) ?? (await this.readWithinBudget(page, viewer));
    const sort = sortName(query.sort);
    return {
      stories: found.filter((story) => story.published),
      nextAfter: next ? encodePosition({ sort, key: next.key, id: next.id }) : '',
      ...(page.total ? { total: page.total } : {}),
      ...(page.tagCounts ? { tagCounts: page.tagCounts } : {}),
    };
  }

  /**
   * The stories of a page of ids within the page's byte budget (docs/api/foundation.md, "Byte
   * budgets"), and where the next page starts: after the last story read when the budget cut
   * the page short, else where the page of ids ends.
   */
  private async readWithinBudget(page: IdPage, viewer: Viewer): Promise<{ stories: Story[]; next: ListPosition | undefined }> {
    const { stories, covered } = await this.stories.findWithinBudget(page.ids, draftsOf(viewer), LIST_PAGE_MAX_BYTES);
    return { stories, next: covered < page.ids.length ? page.positions[covered - 1] : page.next };
  }

  /** The empty list, after validating page size and position anyway, so bad ones are errors here too. */
  private nothing(input: PageInput, sort: Sort): StoryPage {
    this.limit(input);
    this.position(input, sort);
    return { stories: [], nextAfter: '' };
  }

  private limit(input: PageInput): number {
    return pageLimit(input.pageSize);
  }

  private position(input: PageInput, sort: Sort): { key: string | null; id: string } | undefined {
    if (input.after === '') return undefined;
    const position = decodePosition(input.after, sortName(sort), isEntityId);
    if (!position) throw invalidCursor();
    return { key: position.key, id: position.id };
  }

  private async checkTagsExist(tagIds: readonly string[]): Promise<void> {
    if (tagIds.length === 0) return;
    const known = new Set((await this.tags.findByIds(tagIds)).map((tag) => tag.id));
    const unknown = tagIds.filter((id) => !known.has(id));
    if (unknown.length > 0) throw AppError.validation('/data/relationships/tags', `Unknown tag: ${unknown.slice(0, 5).join(', ')}.`);
  }

  private async visibleAfterWrite(story: Story, viewer: Viewer): Promise<Story> {
    // The writer sees all their chapter ids only with read_stories, as on a read.
    if (canSeeDraftsOf(story.authorId, viewer)) return story;
    return (await this.stories.findById(story.id, null)) ?? story;
  }
}

/**
 * The stories of a page of the search index as it holds them, cut to the page's byte budget
 * (docs/api/foundation.md, "Byte budgets") as Postgres would cut them, and where the next page
 * starts; undefined when Postgres must be read instead: the index lacks a story's texts, or
 * `draftsOfUser` wrote one of them (their view of it includes draft chapters).
 */
function listedWithinBudget(page: IdPage, draftsOfUser: string | null): { stories: Story[]; next: ListPosition | undefined } | undefined {
  const listed = page.stories;
  if (listed === undefined || listed.length !== page.ids.length) return undefined;
  const stories: Story[] = [];
  for (const story of listed) {
    if (story === undefined || story.authorId === draftsOfUser) return undefined;
    stories.push(story);
  }
  const covered = countWithinBudget(stories, LIST_PAGE_MAX_BYTES, textBytes);
  return { stories: stories.slice(0, covered), next: covered < stories.length ? page.positions[covered - 1] : page.next };
}

/** What a story costs of a page's byte budget beyond the fixed cost per item: its description and HTML, as Postgres counts them. */
function textBytes(story: Story): number {
  return Buffer.byteLength(story.description, 'utf8') + Buffer.byteLength(story.descriptionHtml, 'utf8');
}

/** A page position that does not belong to the list it is used with. */
function invalidCursor(): AppError {
  return AppError.badParameter('page[cursor]', 'The cursor does not belong to this list.', 'invalid_cursor');
}

/** filter[unread] without a filter[bookshelf] naming a shelf the caller owns. */
function unreadNeedsOwnShelf(): AppError {
  return AppError.badParameter('filter[unread]', 'filter[unread] needs a filter[bookshelf] naming a bookshelf of your own.', 'unread_requires_owned_bookshelf');
}

/**
 * The signed-in user a write acts for. The access option of every write RPC requires one (and its
 * scope) before the service runs (docs/api/foundation.md, "One contract"): without one this is a
 * wiring fault, not a refusal.
 */
export function writerOf(viewer: Viewer): string {
  if (viewer.userId === undefined) throw new Error('A write reached the stories service without a signed-in user.');
  return viewer.userId;
}

/**
 * Authorship for writes: another user's draft does not exist for the caller (404), another
 * user's published story is 403 forbidden.
 */
export function assertAuthor(story: Story, viewer: Viewer): void {
  if (story.authorId === viewer.userId) return;
  if (!story.published) throw AppError.notFound('story');
  throw AppError.forbidden('Only the author can change this story.');
}

/** The user whose drafts (chapter ids of their stories) the viewer may see, or null. */
export function draftsOf(viewer: Viewer): string | null {
  return viewer.userId !== undefined && viewer.scopes.includes(READ_STORIES) ? viewer.userId : null;
}

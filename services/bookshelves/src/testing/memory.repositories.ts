import { counts, type StoryState } from '@inkwell/known-stories';
import { MemorySequence } from '@inkwell/testing/memory';
import type { Bookshelf, BookshelfItem } from '../domain/bookshelf.js';
import type { Position } from '../domain/page.js';
import type { AddOutcome, ItemPage } from '../repositories/bookshelf-item.repository.js';
import type { BookshelfUpdate, NewBookshelf, ShelfPage } from '../repositories/bookshelf.repository.js';
import { BookshelfItemService, type ItemStore, type StoryDirectory } from '../services/bookshelf-item.service.js';
import { BookshelfService, type ShelfStore } from '../services/bookshelf.service.js';

/** A shelf as stored: every count, num_items included (the cap counts items of any story). */
type StoredShelf = Bookshelf & { numItems: number; numUnread: number };

/**
 * The tables of the bookshelves schema in memory: shelves, items and the copy of the stories,
 * shared by the memory repositories below so that counts move as in Postgres. Ids are
 * increasing numeric strings; each write happens strictly later than the one before.
 */
export class MemoryBookshelvesData extends MemorySequence {
  readonly shelves = new Map<string, StoredShelf>();
  readonly items = new Map<string, BookshelfItem>();
  readonly stories = new Map<string, StoryState>();

  /** Records a story's state in the copy, as the consumer of the stories' events would (deletion is final). */
  putStory(state: StoryState): void {
    const stored = this.stories.get(state.storyId);
    if (stored?.deleted) return;
    this.stories.set(state.storyId, { ...state });
  }
}

function withoutItemCount(shelf: StoredShelf): Bookshelf {
  const { numItems: _numItems, ...rest } = shelf;
  return rest;
}

/** BookshelfRepository in memory: shelves in their owner's order (order, then id), the per-owner cap. */
export class MemoryBookshelfRepository implements ShelfStore {
  constructor(private readonly data: MemoryBookshelvesData) {}

  async findById(id: string): Promise<Bookshelf | undefined> {
    const shelf = this.data.shelves.get(id);
    return shelf && withoutItemCount(shelf);
  }

  async findByIds(ids: readonly string[]): Promise<{ shelves: Bookshelf[]; covered: number }> {
    const unique = [...new Set(ids)];
    return { shelves: unique.flatMap((id) => { const shelf = this.data.shelves.get(id); return shelf ? [withoutItemCount(shelf)] : []; }), covered: unique.length };
  }

  async listByOwner(ownerId: string, includePrivate: boolean, pageSize: number, after: Position | undefined): Promise<ShelfPage> {
    const rest = [...this.data.shelves.values()]
      .filter((shelf) => shelf.ownerId === ownerId && (includePrivate || shelf.privacy === 'public'))
      .sort((a, b) => a.order - b.order || Number(a.id) - Number(b.id))
      .filter((shelf) => after === undefined || shelf.order > after.key || (shelf.order === after.key && Number(shelf.id) > Number(after.id)));
    const page = rest.slice(0, pageSize);
    const last = page.at(-1);
    return { shelves: page.map(withoutItemCount), ...(rest.length > pageSize && last ? { next: { key: last.order, id: last.id } } : {}) };
  }

  async create(shelf: NewBookshelf, maxShelves: number): Promise<Bookshelf | undefined> {
    const owned = [...this.data.shelves.values()].filter((candidate) => candidate.ownerId === shelf.ownerId);
    if (owned.length >= maxShelves) return undefined;
    const now = this.data.now();
    const { order, ...rest } = shelf;
    const created: StoredShelf = {
      id: this.data.nextId(),
      ...rest,
      order: order ?? Math.min(Math.max(-1, ...owned.map((candidate) => candidate.order)) + 1, 2147483647),
      numItems: 0,
      numStories: 0,
      numUnread: 0,
      dateCreated: now,
      dateModified: now,
    };
    this.data.shelves.set(created.id, created);
    return withoutItemCount(created);
  }

  async update(id: string, update: BookshelfUpdate): Promise<Bookshelf | undefined> {
    const shelf = this.data.shelves.get(id);
    if (!shelf) return undefined;
    const defined = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined));
    Object.assign(shelf, defined, { dateModified: this.data.now() });
    return withoutItemCount(shelf);
  }

  async delete(id: string): Promise<boolean> {
    for (const item of [...this.data.items.values()]) if (item.bookshelfId === id) this.data.items.delete(item.id);
    return this.data.shelves.delete(id);
  }
}

/** BookshelfItemRepository in memory: one item per story and shelf, the per-shelf cap, counts of published stories only. */
export class MemoryBookshelfItemRepository implements ItemStore {
  constructor(private readonly data: MemoryBookshelvesData) {}

  async list(shelfId: string, unpublishedOf: string | undefined, pageSize: number, after: Position | undefined): Promise<ItemPage> {
    const rest = [...this.data.items.values()]
      .filter((item) => {
        const story = this.data.stories.get(item.storyId);
        return item.bookshelfId === shelfId && story !== undefined && (story.published || story.authorId === unpublishedOf);
      })
      .sort((a, b) => a.dateAdded.getTime() - b.dateAdded.getTime() || Number(a.id) - Number(b.id))
      .filter((item) => after === undefined || item.dateAdded.getTime() > after.key || (item.dateAdded.getTime() === after.key && Number(item.id) > Number(after.id)));
    const page = rest.slice(0, pageSize);
    const last = page.at(-1);
    return { items: page.map((item) => ({ ...item })), ...(rest.length > pageSize && last ? { next: { key: last.dateAdded.getTime(), id: last.id } } : {}) };
  }

  async find(shelfId: string, itemId: string): Promise<BookshelfItem | undefined> {
    const item = this.data.items.get(itemId);
    return item?.bookshelfId === shelfId ? { ...item } : undefined;
  }

  async add(shelfId: string, story: StoryState, read: boolean, maxItems: number): Promise<AddOutcome> {
    this.data.putStory(story);
    const current = this.data.stories.get(story.storyId)!;
    if (current.deleted) return { refused: 'no_story' };
    const shelf = this.data.shelves.get(shelfId);
    if (!shelf) return { refused: 'no_shelf' };
    if (shelf.numItems >= maxItems) return { refused: 'full' };
    if ([...this.data.items.values()].some((item) => item.bookshelfId === shelfId && item.storyId === story.storyId)) return { refused: 'duplicate' };
    const added: BookshelfItem = { id: this.data.nextId(), bookshelfId: shelfId, ownerId: shelf.ownerId, storyId: story.storyId, read, dateAdded: this.data.now() };
    this.data.items.set(added.id, added);
    this.#move(shelf, counts(current), 1, read);
    return { added: { ...added } };
  }

  async setRead(shelfId: string, itemId: string, read: boolean): Promise<BookshelfItem | undefined> {
    const item = this.data.items.get(itemId);
    const shelf = this.data.shelves.get(shelfId);
    if (!item || !shelf || item.bookshelfId !== shelfId) return undefined;
    if (item.read !== read && counts(this.data.stories.get(item.storyId))) shelf.numUnread += read ? -1 : 1;
    item.read = read;
    return { ...item };
  }

  async remove(shelfId: string, itemId: string): Promise<BookshelfItem | undefined> {
    const item = this.data.items.get(itemId);
    const shelf = this.data.shelves.get(shelfId);
    if (!item || !shelf || item.bookshelfId !== shelfId) return undefined;
    this.data.items.delete(itemId);
    this.#move(shelf, counts(this.data.stories.get(item.storyId)), -1, item.read);
    return item;
  }

  #move(shelf: StoredShelf, storyCounts: boolean, delta: 1 | -1, read: boolean): void {
    shelf.numItems += delta;
    if (!storyCounts) return;
    shelf.numStories += delta;
    if (!read) shelf.numUnread += delta;
  }
}

/**
 * The stories service's answer to "may this caller see story `id`", from the copy: published
 * stories for everyone, drafts for their author holding read_stories (as GetStory decides).
 */
export class MemoryStoryDirectory implements StoryDirectory {
  constructor(private readonly data: MemoryBookshelvesData) {}

  async visibleStory(id: string, caller: { userId?: string; scopes: readonly string[] }): Promise<StoryState | undefined> {
    const story = this.data.stories.get(id);
    if (!story || story.deleted) return undefined;
    if (story.published || (story.authorId === caller.userId && caller.scopes.includes('read_stories'))) return { ...story };
    return undefined;
  }
}

/** The bookshelves services over one fresh memory store, and the store itself to arrange and inspect. */
export function memoryBookshelves(): { data: MemoryBookshelvesData; shelves: BookshelfService; items: BookshelfItemService } {
  const data = new MemoryBookshelvesData();
  const shelfRepository = new MemoryBookshelfRepository(data);
  return {
    data,
    shelves: new BookshelfService(shelfRepository),
    items: new BookshelfItemService({ shelves: shelfRepository, items: new MemoryBookshelfItemRepository(data), stories: new MemoryStoryDirectory(data) }),
  };
}

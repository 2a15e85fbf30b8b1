import { AppError, ErrorCode } from '@inkwell/errors';
import { isId, MAX_ITEMS_PER_SHELF, unpublishedVisibleFor, type BookshelfItem, type Caller } from '../domain/bookshelf.js';
import { POINTERS } from '../domain/bookshelf-input.js';
import { decodePosition, encodePosition, pageSizeOf } from '../domain/page.js';
import type { BookshelfItemRepository } from '../repositories/bookshelf-item.repository.js';
import type { ForwardedCaller, StoryDirectoryRepository } from '../repositories/story-directory.repository.js';
import type { PageInput } from './bookshelf.service.js';
import { ownedShelf, readableShelf, validationError, type ShelfLookup } from './shelf-access.js';

/** One page of items and the position after it ('' on the last page). */
export interface ItemPageResult {
  items: BookshelfItem[];
  nextAfter: string;
}

/** What the item rules read and write of items: BookshelfItemRepository, or a memory store in unit tests. */
export type ItemStore = Pick<BookshelfItemRepository, 'list' | 'find' | 'add' | 'setRead' | 'remove'>;

/** Which stories a caller may see, asked of the stories service (StoryDirectoryRepository). */
export type StoryDirectory = Pick<StoryDirectoryRepository, 'visibleStory'>;

/** What the item rules need. */
export interface BookshelfItemServiceDeps {
  shelves: ShelfLookup;
  items: ItemStore;
  stories: StoryDirectory;
}

/**
 * The rules about the items of shelves (docs/api/bookshelves.md): which items a caller sees, which
 * stories may be shelved (those the caller can see, asked of the stories service), one item per
 * story and shelf, the per-shelf cap, and ownership of writes.
 */
export class BookshelfItemService {
  private readonly shelves: ShelfLookup;
  private readonly items: ItemStore;
  private readonly stories: StoryDirectory;

  constructor(deps: BookshelfItemServiceDeps) {
    this.shelves = deps.shelves;
    this.items = deps.items;
    this.stories = deps.stories;
  }

  /**
   * One page of a visible shelf's items in the order added. Items of unpublished stories are
   * listed only to their author holding read_stories.
   */
  async listBookshelfItems(shelfId: string, page: PageInput, caller: Caller): Promise<ItemPageResult> {
    await readableShelf(this.shelves, shelfId, caller);
    const size = pageSizeOf(page.pageSize);
    const after = page.after === '' ? undefined : decodePosition('items', page.after);
    if (page.after !== '' && after === undefined) throw AppError.badParameter('page[cursor]', 'The cursor is not valid for this list.', 'invalid_cursor');
    const result = await this.items.list(shelfId, unpublishedVisibleFor(caller), size, after);
    return { items: result.items, nextAfter: result.next ? encodePosition('items', result.next) : '' };
  }

  /**
   * Puts story `storyId` on the caller's shelf. After the ownership checks: a story that does not
   * exist or that the caller may not see (the stories service's answer) is validation_failed on
   * /data/relationships/story; a full shelf is validation_failed on /data; a story already on the
   * shelf is ALREADY_EXISTS conflict.
   */
  async addBookshelfItem(shelfId: string, storyId: string, read: boolean, caller: ForwardedCaller): Promise<BookshelfItem> {
    await ownedShelf(this.shelves, shelfId, caller);
    const story = isId(storyId) ? await this.stories.visibleStory(storyId, caller) : undefined;
    if (!story) throw validationError([{ pointer: POINTERS.story, detail: `Story ${storyId} does not exist or is not visible to you.` }]);
    const outcome = await this.items.add(shelfId, story, read, MAX_ITEMS_PER_SHELF);
    if ('added' in outcome) return outcome.added;
    switch (outcome.refused) {
      case 'no_shelf':
        throw AppError.notFound('bookshelf');
      case 'no_story':
        throw validationError([{ pointer: POINTERS.story, detail: `Story ${storyId} does not exist.` }]);
      case 'full':
        throw validationError([{ pointer: '/data', detail: `A bookshelf can hold at most ${MAX_ITEMS_PER_SHELF} stories.` }]);
      case 'duplicate':
        throw new AppError(ErrorCode.ALREADY_EXISTS, `Story ${storyId} is already on this bookshelf.`, { details: [{ reason: 'conflict' }] });
    }
  }

  /** Marks an item of the caller's shelf read or unread (unset: unchanged); NOT_FOUND when the item is not on that shelf. */
  async updateBookshelfItem(shelfId: string, itemId: string, read: boolean | undefined, caller: Caller): Promise<BookshelfItem> {
    await ownedShelf(this.shelves, shelfId, caller);
    const item = !isId(itemId) ? undefined : read === undefined ? await this.items.find(shelfId, itemId) : await this.items.setRead(shelfId, itemId, read);
    if (!item) throw AppError.notFound('bookshelf item');
    return item;
  }

  /** Takes an item off the caller's shelf; NOT_FOUND when the item is not on that shelf. */
  async removeBookshelfItem(shelfId: string, itemId: string, caller: Caller): Promise<void> {
    await ownedShelf(this.shelves, shelfId, caller);
    const removed = isId(itemId) ? await this.items.remove(shelfId, itemId) : undefined;
    if (!removed) throw AppError.notFound('bookshelf item');
  }
}

import { describe, expect, it } from 'vitest';
import { MAX_ITEMS_PER_SHELF } from '../domain/bookshelf.js';
import type { ForwardedCaller } from '../repositories/story-directory.repository.js';
import { memoryBookshelves } from '../testing/memory.repositories.js';

const SCOPES = ['read_bookshelves', 'write_bookshelves', 'read_stories'];
const owner: ForwardedCaller = { requestId: 'r1', userId: '10', scopes: SCOPES };
const stranger: ForwardedCaller = { requestId: 'r2', userId: '11', scopes: SCOPES };
const firstPage = { pageSize: 0, after: '' };
const version = new Date('2026-01-01T00:00:00Z');

/** Two shelves of user 10 (one public), stories 100 and 101 published by user 20, and user 10's own draft 102. */
async function world() {
  const bookshelves = memoryBookshelves();
  const { data, shelves } = bookshelves;
  const open = await shelves.createBookshelf('10', { name: 'Open', description: '', privacy: 'public' }, owner);
  const closed = await shelves.createBookshelf('10', { name: 'Closed', description: '' }, owner);
  data.putStory({ storyId: '100', authorId: '20', published: true, deleted: false, version });
  data.putStory({ storyId: '101', authorId: '20', published: true, deleted: false, version });
  data.putStory({ storyId: '102', authorId: '10', published: false, deleted: false, version });
  data.putStory({ storyId: '103', authorId: '11', published: false, deleted: false, version });
  return { ...bookshelves, open, closed };
}

describe('BookshelfItemService adding', () => {
  it('adds a story unread by default, or read, and counts both', async () => {
    const { items, shelves, open } = await world();
    expect(await items.addBookshelfItem(open.id, '100', false, owner)).toMatchObject({ bookshelfId: open.id, ownerId: '10', storyId: '100', read: false });
    await items.addBookshelfItem(open.id, '101', true, owner);

    expect(await shelves.getBookshelf(open.id, owner)).toMatchObject({ numStories: 2, numUnread: 1 });
  });

  it('refuses a story already on the shelf with ALREADY_EXISTS conflict, and counts it once', async () => {
    const { items, shelves, open } = await world();
    await items.addBookshelfItem(open.id, '100', false, owner);

    await expect(items.addBookshelfItem(open.id, '100', true, owner)).rejects.toMatchObject({ code: 'ALREADY_EXISTS', details: [{ reason: 'conflict' }] });
    expect(await shelves.getBookshelf(open.id, owner)).toMatchObject({ numStories: 1, numUnread: 1 });
  });

  it('refuses unknown stories and someone else’s draft as validation_failed on the story relationship', async () => {
    const { items, open } = await world();
    const onStory = { code: 'INVALID_ARGUMENT', details: [{ reason: 'validation_failed', pointer: '/data/relationships/story' }] };

    await expect(items.addBookshelfItem(open.id, '999', false, owner)).rejects.toMatchObject(onStory);
    await expect(items.addBookshelfItem(open.id, '103', false, owner)).rejects.toMatchObject(onStory);
    await expect(items.addBookshelfItem(open.id, 'story', false, owner)).rejects.toMatchObject(onStory);
  });

  it('shelves one’s own draft, lists it only to its author with read_stories, and does not count it', async () => {
    const { items, shelves, open } = await world();
    await items.addBookshelfItem(open.id, '102', false, owner);

    expect((await items.listBookshelfItems(open.id, firstPage, owner)).items.map((item) => item.storyId)).toEqual(['102']);
    expect((await items.listBookshelfItems(open.id, firstPage, { userId: '10', scopes: ['read_bookshelves'] })).items).toEqual([]);
    expect((await items.listBookshelfItems(open.id, firstPage, stranger)).items).toEqual([]);
    expect(await shelves.getBookshelf(open.id, owner)).toMatchObject({ numStories: 0, numUnread: 0 });
  });

  it('lets only the owner add: forbidden on a visible shelf, NOT_FOUND on a hidden one', async () => {
    const { items, open, closed } = await world();
    await expect(items.addBookshelfItem(open.id, '100', false, stranger)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(items.addBookshelfItem(closed.id, '100', false, stranger)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it(`refuses a story on a shelf holding ${MAX_ITEMS_PER_SHELF} items with validation_failed on /data`, async () => {
    const { items, data, open } = await world();
    data.shelves.get(open.id)!.numItems = MAX_ITEMS_PER_SHELF;
    await expect(items.addBookshelfItem(open.id, '100', false, owner)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'validation_failed', pointer: '/data' }] });
  });
});

describe('BookshelfItemService reading and changing', () => {
  it('lists a private shelf’s items only to its owner, in the order added', async () => {
    const { items, closed } = await world();
    const first = await items.addBookshelfItem(closed.id, '101', false, owner);
    const second = await items.addBookshelfItem(closed.id, '100', false, owner);

    const page = await items.listBookshelfItems(closed.id, { pageSize: 1, after: '' }, owner);
    const rest = await items.listBookshelfItems(closed.id, { pageSize: 1, after: page.nextAfter }, owner);
    expect([...page.items, ...rest.items].map((item) => item.id)).toEqual([first.id, second.id]);
    await expect(items.listBookshelfItems(closed.id, firstPage, stranger)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('marks items read and unread keeping num_unread exact; an item of another shelf is NOT_FOUND', async () => {
    const { items, shelves, open, closed } = await world();
    const item = await items.addBookshelfItem(open.id, '100', false, owner);

    expect((await items.updateBookshelfItem(open.id, item.id, true, owner)).read).toBe(true);
    expect(await shelves.getBookshelf(open.id, owner)).toMatchObject({ numUnread: 0 });
    expect((await items.updateBookshelfItem(open.id, item.id, undefined, owner)).read).toBe(true);
    await items.updateBookshelfItem(open.id, item.id, false, owner);
    expect(await shelves.getBookshelf(open.id, owner)).toMatchObject({ numUnread: 1 });
    await expect(items.updateBookshelfItem(closed.id, item.id, true, owner)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(items.updateBookshelfItem(open.id, item.id, true, stranger)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('removes items keeping the counts exact; a removed item is NOT_FOUND', async () => {
    const { items, shelves, open } = await world();
    const item = await items.addBookshelfItem(open.id, '100', false, owner);

    await expect(items.removeBookshelfItem(open.id, item.id, stranger)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await items.removeBookshelfItem(open.id, item.id, owner);
    expect(await shelves.getBookshelf(open.id, owner)).toMatchObject({ numStories: 0, numUnread: 0 });
    await expect(items.removeBookshelfItem(open.id, item.id, owner)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
  });
});

import { describe, expect, it } from 'vitest';
import { MAX_SHELVES_PER_USER, type Caller } from '../domain/bookshelf.js';
import { memoryBookshelves } from '../testing/memory.repositories.js';

const owner: Caller = { userId: '10', scopes: ['read_bookshelves', 'write_bookshelves'] };
const stranger: Caller = { userId: '11', scopes: ['read_bookshelves', 'write_bookshelves'] };
const app: Caller = { appId: 'app', scopes: [] };
const firstPage = { pageSize: 0, after: '' };
const shelf = { name: 'Favourites', description: '' };

describe('BookshelfService writes', () => {
  it('creates a private #3366cc shelf after the owner’s others, name trimmed, counts zero', async () => {
    const { shelves } = memoryBookshelves();
    const first = await shelves.createBookshelf('10', { ...shelf, order: 7 }, owner);
    const second = await shelves.createBookshelf('10', { ...shelf, name: '  To read  ' }, owner);

    expect(second).toMatchObject({ ownerId: '10', name: 'To read', privacy: 'private', color: '#3366cc', order: first.order + 1, numStories: 0, numUnread: 0 });
  });

  it('creates shelves only for the caller', async () => {
    const { shelves } = memoryBookshelves();
    await expect(shelves.createBookshelf('10', shelf, stranger)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
  });

  it(`allows ${MAX_SHELVES_PER_USER} shelves per user and refuses one more with validation_failed on /data`, async () => {
    const { shelves } = memoryBookshelves();
    for (let n = 0; n < MAX_SHELVES_PER_USER; n++) await shelves.createBookshelf('10', shelf, owner);

    await expect(shelves.createBookshelf('10', shelf, owner)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ reason: 'validation_failed', pointer: '/data' }] });
    await shelves.createBookshelf('11', shelf, stranger);
  });

  it('refuses writes on someone else’s shelf: forbidden when visible, NOT_FOUND when private', async () => {
    const { shelves } = memoryBookshelves();
    const open = await shelves.createBookshelf('10', { ...shelf, privacy: 'public' }, owner);
    const closed = await shelves.createBookshelf('10', shelf, owner);

    await expect(shelves.updateBookshelf(open.id, { name: 'Mine' }, stranger)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(shelves.deleteBookshelf(open.id, stranger)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(shelves.updateBookshelf(closed.id, { name: 'Mine' }, stranger)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(shelves.deleteBookshelf(closed.id, stranger)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await shelves.getBookshelf(open.id, owner)).name).toBe('Favourites');
  });

  it('lets the owner write a private shelf with write_bookshelves alone', async () => {
    const { shelves } = memoryBookshelves();
    const closed = await shelves.createBookshelf('10', shelf, owner);
    expect(await shelves.updateBookshelf(closed.id, { color: '#ABCDEF' }, { userId: '10', scopes: ['write_bookshelves'] })).toMatchObject({ color: '#abcdef' });
  });

  it('changes only what is set; an empty change writes nothing', async () => {
    const { shelves } = memoryBookshelves();
    const created = await shelves.createBookshelf('10', { ...shelf, description: 'Keep' }, owner);

    expect(await shelves.updateBookshelf(created.id, {}, owner)).toEqual(created);
    const renamed = await shelves.updateBookshelf(created.id, { name: ' Renamed ' }, owner);
    expect(renamed).toMatchObject({ name: 'Renamed', description: 'Keep', privacy: 'private' });
    expect(renamed.dateModified.getTime()).toBeGreaterThan(created.dateModified.getTime());
  });

  it('deletes a shelf for its owner; unknown and malformed ids are NOT_FOUND', async () => {
    const { shelves } = memoryBookshelves();
    const created = await shelves.createBookshelf('10', shelf, owner);
    await shelves.deleteBookshelf(created.id, owner);

    await expect(shelves.getBookshelf(created.id, owner)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(shelves.deleteBookshelf(created.id, owner)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(shelves.deleteBookshelf('shelf', owner)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('BookshelfService visibility', () => {
  it('shows a public shelf to everyone, num_unread to the owner only', async () => {
    const { shelves } = memoryBookshelves();
    const open = await shelves.createBookshelf('10', { ...shelf, privacy: 'public' }, owner);

    expect((await shelves.getBookshelf(open.id, owner)).numUnread).toBe(0);
    expect(await shelves.getBookshelf(open.id, stranger)).not.toHaveProperty('numUnread');
    expect(await shelves.getBookshelf(open.id, app)).toMatchObject({ id: open.id, numStories: 0 });
  });

  it('shows a private shelf to its owner and to nobody else (NOT_FOUND, as if it did not exist)', async () => {
    const { shelves } = memoryBookshelves();
    const closed = await shelves.createBookshelf('10', shelf, owner);

    expect((await shelves.getBookshelf(closed.id, owner)).id).toBe(closed.id);
    await expect(shelves.getBookshelf(closed.id, stranger)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(shelves.getBookshelf(closed.id, app)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists and batch-gets private shelves only for their owner, in order', async () => {
    const { shelves } = memoryBookshelves();
    const open = await shelves.createBookshelf('10', { ...shelf, privacy: 'public' }, owner);
    const closed = await shelves.createBookshelf('10', shelf, owner);

    expect((await shelves.listUserBookshelves('10', firstPage, owner)).shelves.map((found) => found.id)).toEqual([open.id, closed.id]);
    expect((await shelves.listUserBookshelves('10', firstPage, stranger)).shelves.map((found) => found.id)).toEqual([open.id]);
    expect((await shelves.batchGetBookshelves([closed.id, open.id, '999'], owner)).items.map((found) => found.id)).toEqual([closed.id, open.id]);
    expect((await shelves.batchGetBookshelves([closed.id, open.id], stranger)).items.map((found) => found.id)).toEqual([open.id]);
  });

  it('pages through the owner’s order (order, then id); an unknown user has no shelves', async () => {
    const { shelves } = memoryBookshelves();
    const third = await shelves.createBookshelf('10', { ...shelf, order: 5 }, owner);
    const first = await shelves.createBookshelf('10', { ...shelf, order: 1 }, owner);
    const second = await shelves.createBookshelf('10', { ...shelf, order: 1 }, owner);

    const page = await shelves.listUserBookshelves('10', { pageSize: 2, after: '' }, owner);
    const rest = await shelves.listUserBookshelves('10', { pageSize: 2, after: page.nextAfter }, owner);
    expect([...page.shelves, ...rest.shelves].map((found) => found.id)).toEqual([first.id, second.id, third.id]);
    expect(rest.nextAfter).toBe('');
    expect(await shelves.listUserBookshelves('12', firstPage, owner)).toEqual({ shelves: [], nextAfter: '' });
  });
});

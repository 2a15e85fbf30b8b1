import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookshelfPrivacy } from '@inkwell/proto/bookshelves';
import { Topics } from '@inkwell/proto/topics';
import { app, freshUserId, startBookshelvesHarness, user, type BookshelvesHarness } from './harness.js';
import { storyMaker } from './stories.js';

const { PUBLIC, PRIVATE } = BookshelfPrivacy;

describe('bookshelf items over gRPC', () => {
  let h: BookshelvesHarness;
  let stories: ReturnType<typeof storyMaker>;
  const writer = freshUserId();
  let published: string[];

  beforeAll(async () => {
    h = await startBookshelvesHarness('inkwell_test_bookshelves_items');
    stories = storyMaker(h);
    published = [];
    for (let i = 0; i < 6; i++) published.push(await stories.published(writer, `Story ${i}`));
  });

  afterAll(async () => {
    await h?.close();
  });

  const shelf = async (owner: string, privacy = PUBLIC) => (await h.client.createBookshelf({ userId: owner, name: 'Shelf', privacy }, user(owner))).bookshelf!.id;
  const add = (shelfId: string, storyId: string, who: ReturnType<typeof user>, read?: boolean) =>
    h.client.addBookshelfItem({ bookshelfId: shelfId, storyId, ...(read === undefined ? {} : { read }) }, who).then((response) => response.item!);
  const counts = async (shelfId: string, owner: string) => {
    const { bookshelf } = await h.client.getBookshelf({ id: shelfId }, user(owner));
    return { stories: bookshelf!.numStories, unread: bookshelf!.numUnread };
  };
  const listed = async (shelfId: string, who: ReturnType<typeof user>) => (await h.client.listBookshelfItems({ bookshelfId: shelfId, pageSize: 100 }, who)).items.map((item) => item.storyId);
  const storyInvalid = { code: 'INVALID_ARGUMENT', details: [expect.objectContaining({ reason: 'validation_failed', pointer: '/data/relationships/story' })] };

  it('adds a story unread by default, or read, and counts both', async () => {
    const owner = freshUserId();
    const id = await shelf(owner);
    const item = await add(id, published[0]!, user(owner));
    expect(item).toMatchObject({ bookshelfId: id, storyId: published[0], read: false });
    expect(item.dateAdded).toBeDefined();
    expect(await counts(id, owner)).toEqual({ stories: 1, unread: 1 });
    expect((await add(id, published[1]!, user(owner), true)).read).toBe(true);
    expect(await counts(id, owner)).toEqual({ stories: 2, unread: 1 });
    expect(await listed(id, app())).toEqual([published[0], published[1]]);
  });

  it('refuses a story already on the shelf with ALREADY_EXISTS conflict, and counts it once', async () => {
    const owner = freshUserId();
    const id = await shelf(owner);
    await add(id, published[0]!, user(owner));
    await expect(add(id, published[0]!, user(owner))).rejects.toMatchObject({ code: 'ALREADY_EXISTS', details: [{ reason: 'conflict' }] });
    expect(await counts(id, owner)).toEqual({ stories: 1, unread: 1 });
    // The same story on another shelf is fine.
    await add(await shelf(owner), published[0]!, user(owner));
  });

  it('refuses unknown stories and someone else’s draft as validation_failed on the story relationship', async () => {
    const owner = freshUserId();
    const id = await shelf(owner);
    await expect(add(id, '987654321', user(owner))).rejects.toMatchObject(storyInvalid);
    await expect(add(id, '0', user(owner))).rejects.toMatchObject(storyInvalid);
    const theirs = await stories.draft(writer);
    await expect(add(id, theirs, user(owner))).rejects.toMatchObject(storyInvalid);
    expect(await listed(id, user(owner))).toEqual([]);
  });

  it('shelves one’s own draft (read_stories), lists it only to its author with read_stories, and does not count it', async () => {
    const owner = freshUserId();
    const id = await shelf(owner, PUBLIC);
    const mine = await stories.draft(owner, 'My draft');
    await expect(add(id, mine, user(owner, ['write_bookshelves']))).rejects.toMatchObject(storyInvalid);
    await add(id, mine, user(owner));
    await add(id, published[2]!, user(owner));
    expect(await counts(id, owner)).toEqual({ stories: 1, unread: 1 });
    expect(await listed(id, user(owner))).toEqual([mine, published[2]]);
    expect(await listed(id, user(owner, ['read_bookshelves']))).toEqual([published[2]]);
    expect(await listed(id, user(freshUserId()))).toEqual([published[2]]);
    expect(await listed(id, app())).toEqual([published[2]]);
  });

  it('lets only the owner add: forbidden on a visible shelf, NOT_FOUND on a hidden one', async () => {
    const owner = freshUserId();
    const other = freshUserId();
    const open = await shelf(owner, PUBLIC);
    const hidden = await shelf(owner, PRIVATE);
    await expect(add(open, published[0]!, user(other))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(add(hidden, published[0]!, user(other))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(add(open, published[0]!, app())).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(add('999999999', published[0]!, user(owner))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists a private shelf’s items only to its owner with read_bookshelves', async () => {
    const owner = freshUserId();
    const hidden = await shelf(owner, PRIVATE);
    await add(hidden, published[0]!, user(owner));
    expect(await listed(hidden, user(owner))).toEqual([published[0]]);
    await expect(listed(hidden, user(owner, ['write_bookshelves']))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'insufficient_scope', scope: 'read_bookshelves' }] });
    await expect(listed(hidden, user(freshUserId()))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(listed(hidden, app())).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('pages items in the order added (date_added, then id)', async () => {
    const owner = freshUserId();
    const id = await shelf(owner);
    for (const storyId of published) await add(id, storyId, user(owner));
    // Two items added within the same millisecond: the id breaks the tie.
    await h.pool.query('UPDATE bookshelf_items SET date_added = (SELECT date_added FROM bookshelf_items WHERE bookshelf_id = $1 AND story_id = $2) WHERE bookshelf_id = $1 AND story_id = $3', [id, published[2], published[3]]);
    const seen: string[] = [];
    let after = '';
    do {
      const page = await h.client.listBookshelfItems({ bookshelfId: id, pageSize: 4, after }, app());
      seen.push(...page.items.map((item) => item.storyId));
      after = page.nextAfter;
    } while (after !== '');
    expect(seen).toEqual(published);
    await expect(h.client.listBookshelfItems({ bookshelfId: id, pageSize: 101 }, app())).rejects.toMatchObject({ details: [{ parameter: 'page[size]' }] });
    // A position made for the owner's shelf list is no position in an item list.
    await h.client.createBookshelf({ userId: owner, name: 'second' }, user(owner));
    const shelvesCursor = (await h.client.listUserBookshelves({ userId: owner, pageSize: 1 }, user(owner))).nextAfter;
    expect(shelvesCursor).not.toBe('');
    await expect(h.client.listBookshelfItems({ bookshelfId: id, after: shelvesCursor }, app())).rejects.toMatchObject({ details: [{ reason: 'invalid_cursor' }] });
  });

  it('marks items read and unread, keeping num_unread exact; items of another shelf are NOT_FOUND', async () => {
    const owner = freshUserId();
    const id = await shelf(owner);
    const item = await add(id, published[0]!, user(owner));
    await add(id, published[1]!, user(owner));
    const mark = (read: boolean | undefined, itemId = item.id, shelfId = id, who = user(owner)) =>
      h.client.updateBookshelfItem({ bookshelfId: shelfId, itemId, ...(read === undefined ? {} : { read }) }, who).then((response) => response.item!);
    expect((await mark(true)).read).toBe(true);
    expect(await counts(id, owner)).toEqual({ stories: 2, unread: 1 });
    expect((await mark(true)).read).toBe(true);
    expect(await counts(id, owner)).toEqual({ stories: 2, unread: 1 });
    expect((await mark(undefined)).read).toBe(true);
    expect((await mark(false)).read).toBe(false);
    expect(await counts(id, owner)).toEqual({ stories: 2, unread: 2 });
    const elsewhere = await shelf(owner);
    await expect(mark(true, item.id, elsewhere)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(mark(true, '999999999')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(mark(true, item.id, id, user(freshUserId()))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
  });

  it('removes items, keeping the counts exact; a removed item is NOT_FOUND', async () => {
    const owner = freshUserId();
    const id = await shelf(owner);
    const unread = await add(id, published[0]!, user(owner));
    const read = await add(id, published[1]!, user(owner), true);
    await h.client.removeBookshelfItem({ bookshelfId: id, itemId: read.id }, user(owner));
    expect(await counts(id, owner)).toEqual({ stories: 1, unread: 1 });
    await h.client.removeBookshelfItem({ bookshelfId: id, itemId: unread.id }, user(owner));
    expect(await counts(id, owner)).toEqual({ stories: 0, unread: 0 });
    await expect(h.client.removeBookshelfItem({ bookshelfId: id, itemId: unread.id }, user(owner))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Adding it again makes a new item.
    expect((await add(id, published[0]!, user(owner))).id).not.toBe(unread.id);
  });

  it('holds 100,000 items and refuses the 100,001st with validation_failed until one is removed', async () => {
    const owner = freshUserId();
    const id = await shelf(owner);
    await h.pool.query(
      `INSERT INTO known_stories (id, author_id, published, version) SELECT 900000000 + n, 1, false, now() FROM generate_series(1, 100000) n ON CONFLICT DO NOTHING`,
    );
    await h.pool.query('INSERT INTO bookshelf_items (bookshelf_id, story_id) SELECT $1, 900000000 + n FROM generate_series(1, 99999) n', [id]);
    await h.pool.query('UPDATE bookshelves SET num_items = 99999 WHERE id = $1', [id]);
    const last = await add(id, published[0]!, user(owner));
    await expect(add(id, published[1]!, user(owner))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [expect.objectContaining({ reason: 'validation_failed', pointer: '/data' })] });
    await h.client.removeBookshelfItem({ bookshelfId: id, itemId: last.id }, user(owner));
    await add(id, published[1]!, user(owner));
    expect(await counts(id, owner)).toEqual({ stories: 1, unread: 1 });
  });

  it('publishes item events through the outbox, and deleting a shelf removes every item first', async () => {
    const owner = freshUserId();
    const id = await shelf(owner);
    const first = await add(id, published[0]!, user(owner));
    const second = await add(id, published[1]!, user(owner));
    await h.client.updateBookshelfItem({ bookshelfId: id, itemId: first.id, read: true }, user(owner));
    await h.client.deleteBookshelf({ id }, user(owner));
    const { rows } = await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bookshelf_items WHERE bookshelf_id = $1', [id]);
    expect(rows[0]!.n).toBe(0);

    const items = await h.readEvents(Topics.bookshelvesItem, [first.id, second.id]);
    const of = (itemId: string) => items.filter((event) => event.key === itemId).map((event) => event.payload.case);
    expect(of(first.id)).toEqual(['bookshelfItemAdded', 'bookshelfItemUpdated', 'bookshelfItemRemoved']);
    expect(of(second.id)).toEqual(['bookshelfItemAdded', 'bookshelfItemRemoved']);
    const updated = items.find((event) => event.payload.case === 'bookshelfItemUpdated')!.payload.value as { item: { read: boolean; ownerId: string }; previousRead: boolean };
    expect(updated).toMatchObject({ item: { read: true, ownerId: owner, storyId: published[0] }, previousRead: false });
    // Items are keyed by id, so their events may sit on different partitions: compare without order.
    const removed = items.filter((event) => event.payload.case === 'bookshelfItemRemoved').map((event) => (event.payload.value as { item: { itemId: string; bookshelfId: string; read: boolean } }).item);
    expect(removed).toHaveLength(2);
    expect(removed).toEqual(expect.arrayContaining([
      expect.objectContaining({ itemId: first.id, bookshelfId: id, read: true }),
      expect.objectContaining({ itemId: second.id, bookshelfId: id, read: false }),
    ]));
    const shelfEvents = await h.readEvents(Topics.bookshelvesBookshelf, [id]);
    expect(shelfEvents.map((event) => event.payload.case)).toEqual(['bookshelfCreated', 'bookshelfDeleted']);
    // The removals were written before the shelf's deletion, in the same transaction.
    const { rows: order } = await h.pool.query<{ type: string }>("SELECT type FROM outbox WHERE (topic = $1 AND key = $2) OR (topic = $3 AND key = ANY($4::text[])) ORDER BY id", [Topics.bookshelvesBookshelf, id, Topics.bookshelvesItem, [first.id, second.id]]);
    expect(order.map((row) => row.type.replace('inkwell.bookshelves.v1.', '')).slice(-3)).toEqual(['BookshelfItemRemoved', 'BookshelfItemRemoved', 'BookshelfDeleted']);
  });
});

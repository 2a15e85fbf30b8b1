import { timestampDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookshelfPrivacy } from '@inkwell/proto/bookshelves';
import { Topics } from '@inkwell/proto/topics';
import { app, freshUserId, startBookshelvesHarness, user, type BookshelvesHarness } from './harness.js';

const { PUBLIC, PRIVATE } = BookshelfPrivacy;

describe('bookshelves over gRPC', () => {
  let h: BookshelvesHarness;

  beforeAll(async () => {
    h = await startBookshelvesHarness('inkwell_test_bookshelves_shelves');
  });

  afterAll(async () => {
    await h?.close();
  });

  const create = (userId: string, fields: { name?: string; description?: string; privacy?: BookshelfPrivacy; color?: string; order?: number } = {}, who = user(userId)) =>
    h.client.createBookshelf({ userId, name: 'A shelf', ...fields }, who).then((response) => response.bookshelf!);
  const invalid = (pointer: string) => ({ code: 'INVALID_ARGUMENT', details: [expect.objectContaining({ reason: 'validation_failed', pointer })] });

  describe('CreateBookshelf', () => {
    it('creates a private #3366cc shelf after the owner’s others, name trimmed, counts zero', async () => {
      const owner = freshUserId();
      const first = await create(owner, { name: '  Favourites  ' });
      expect(first).toMatchObject({ userId: owner, name: 'Favourites', description: '', privacy: PRIVATE, color: '#3366cc', order: 0, numStories: 0, numUnread: 0 });
      expect(first.dateCreated).toEqual(first.dateModified);
      const second = await create(owner, { name: 'Read later' });
      expect(second.order).toBe(1);
      await create(owner, { order: 41 });
      expect((await create(owner)).order).toBe(42);
    });

    it('keeps what is given, colour in lower case', async () => {
      const owner = freshUserId();
      const shelf = await create(owner, { name: 'Sci-fi', description: 'Plain *text*', privacy: PUBLIC, color: '#AA00ff', order: -7 });
      expect(shelf).toMatchObject({ name: 'Sci-fi', description: 'Plain *text*', privacy: PUBLIC, color: '#aa00ff', order: -7 });
    });

    it('refuses a missing or blank name, a 201-character name, bad colours and a description over 1 MiB', async () => {
      const owner = freshUserId();
      await expect(create(owner, { name: '' })).rejects.toMatchObject(invalid('/data/attributes/name'));
      await expect(create(owner, { name: '   ' })).rejects.toMatchObject(invalid('/data/attributes/name'));
      await expect(create(owner, { name: 'x'.repeat(201) })).rejects.toMatchObject(invalid('/data/attributes/name'));
      expect((await create(owner, { name: 'x'.repeat(200) })).name).toHaveLength(200);
      for (const color of ['red', '#abc', '#12345z', '']) await expect(create(owner, { color })).rejects.toMatchObject(invalid('/data/attributes/color'));
      await expect(create(owner, { description: 'x'.repeat(1024 * 1024 + 1) })).rejects.toMatchObject(invalid('/data/attributes/description'));
      // Names count characters after trimming, descriptions bytes of UTF-8 ('é' is two).
      await expect(create(owner, { name: ` ${'x'.repeat(201)} ` })).rejects.toMatchObject(invalid('/data/attributes/name'));
      await expect(create(owner, { description: `${'é'.repeat(512 * 1024)}x` })).rejects.toMatchObject(invalid('/data/attributes/description'));
      await expect(create(owner, { name: '', color: 'blue' })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: [
          { reason: 'validation_failed', pointer: '/data/attributes/name', detail: 'A bookshelf needs a name.' },
          { reason: 'validation_failed', pointer: '/data/attributes/color', detail: 'The color must be written #rrggbb (six hexadecimal digits).' },
        ],
      });
      const all = await h.client.listUserBookshelves({ userId: owner }, user(owner));
      expect(all.bookshelves).toHaveLength(1);
    });

    it('creates only for the caller, with write_bookshelves, and never for an app-only token', async () => {
      const owner = freshUserId();
      await expect(create(freshUserId(), {}, user(owner))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
      await expect(create(owner, {}, user(owner, ['read_bookshelves']))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'insufficient_scope', scope: 'write_bookshelves' }] });
      // An app acting alone has no user to write as (the gateway refuses it first).
      await expect(create(owner, {}, app())).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'insufficient_scope', scope: 'write_bookshelves' }] });
      await expect(create(owner, {}, { caller: { ...app().caller, scopes: ['write_bookshelves'] } })).rejects.toMatchObject({ code: 'UNAUTHENTICATED', details: [{ reason: 'invalid_token' }] });
    });

    it('allows 1,000 shelves per user and refuses the 1,001st with validation_failed', async () => {
      const owner = freshUserId();
      await h.pool.query(
        "INSERT INTO bookshelves (owner_id, name, privacy, color, position) SELECT $1, 'bulk ' || n, 'private', '#3366cc', n FROM generate_series(1, 999) n",
        [owner],
      );
      expect((await create(owner, { name: 'The thousandth' })).order).toBe(1000);
      await expect(create(owner, { name: 'One too many' })).rejects.toMatchObject(invalid('/data'));
      const { rows } = await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM bookshelves WHERE owner_id = $1', [owner]);
      expect(rows[0]!.n).toBe(1000);
    });
  });

  describe('who sees what', () => {
    const owner = freshUserId();
    const other = freshUserId();
    let open: string;
    let hidden: string;

    beforeAll(async () => {
      open = (await create(owner, { name: 'Open', privacy: PUBLIC })).id;
      hidden = (await create(owner, { name: 'Hidden', privacy: PRIVATE })).id;
    });

    const get = (id: string, who: ReturnType<typeof user>) => h.client.getBookshelf({ id }, who).then((response) => response.bookshelf!);

    it('shows a public shelf to everyone, num_unread to the owner only', async () => {
      expect((await get(open, user(owner))).numUnread).toBe(0);
      expect((await get(open, user(owner, []))).numUnread).toBe(0);
      for (const who of [user(other), user(other, []), app()]) {
        const seen = await get(open, who);
        expect(seen.name).toBe('Open');
        expect(seen.numUnread).toBeUndefined();
      }
    });

    it('shows a private shelf to its owner with read_bookshelves; insufficient_scope without; NOT_FOUND to others', async () => {
      expect((await get(hidden, user(owner, ['read_bookshelves']))).name).toBe('Hidden');
      await expect(get(hidden, user(owner, ['write_bookshelves']))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'insufficient_scope', scope: 'read_bookshelves' }] });
      for (const who of [user(other), app()]) await expect(get(hidden, who)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
      await expect(get('999999999', user(owner))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('lists private shelves only to the owner with read_bookshelves', async () => {
      const names = async (who: ReturnType<typeof user>) => (await h.client.listUserBookshelves({ userId: owner }, who)).bookshelves.map((shelf) => shelf.name);
      expect(await names(user(owner))).toEqual(['Open', 'Hidden']);
      expect(await names(user(owner, ['write_bookshelves']))).toEqual(['Open']);
      expect(await names(user(other))).toEqual(['Open']);
      expect(await names(app())).toEqual(['Open']);
    });

    it('batch-gets visible shelves in request order, leaving out the rest', async () => {
      const ids = async (who: ReturnType<typeof user>) => (await h.client.batchGetBookshelves({ ids: [hidden, '999999999', open, hidden] }, who)).bookshelves.map((shelf) => shelf.id);
      expect(await ids(user(owner))).toEqual([hidden, open]);
      expect(await ids(user(owner, []))).toEqual([open]);
      expect(await ids(app())).toEqual([open]);
      await expect(h.client.batchGetBookshelves({ ids: Array.from({ length: 1001 }, (_, i) => String(i + 1)) }, app())).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('refuses writes on someone else’s shelf: forbidden when visible, NOT_FOUND when not', async () => {
      await expect(h.client.updateBookshelf({ id: open, name: 'Mine now' }, user(other))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
      await expect(h.client.updateBookshelf({ id: hidden, name: 'Mine now' }, user(other))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(h.client.deleteBookshelf({ id: open }, user(other))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
      await expect(h.client.deleteBookshelf({ id: hidden }, user(other))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(h.client.deleteBookshelf({ id: open }, { caller: { ...app().caller, scopes: ['write_bookshelves'] } })).rejects.toMatchObject({ code: 'UNAUTHENTICATED', details: [{ reason: 'invalid_token' }] });
      await expect(h.client.deleteBookshelf({ id: open }, user(owner, ['read_bookshelves']))).rejects.toMatchObject({ details: [{ reason: 'insufficient_scope', scope: 'write_bookshelves' }] });
      expect((await get(open, user(owner))).name).toBe('Open');
    });
  });

  describe('ListUserBookshelves pages', () => {
    it('pages through the owner’s order (order, then id) with page_size and after', async () => {
      const owner = freshUserId();
      const made = [];
      for (const order of [5, 1, 5, 3, 0]) made.push(await create(owner, { name: `o${order}`, order, privacy: PUBLIC }));
      const seen: string[] = [];
      let after = '';
      let pages = 0;
      do {
        const page = await h.client.listUserBookshelves({ userId: owner, pageSize: 2, after }, app());
        seen.push(...page.bookshelves.map((shelf) => shelf.id));
        after = page.nextAfter;
        pages += 1;
      } while (after !== '');
      expect(pages).toBe(3);
      const expected = [...made].sort((a, b) => a.order - b.order || Number(a.id) - Number(b.id)).map((shelf) => shelf.id);
      expect(seen).toEqual(expected);
    });

    it('refuses a bad page size or a cursor of another list; an unknown user has no shelves', async () => {
      await expect(h.client.listUserBookshelves({ userId: '1', pageSize: 101 }, app())).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ parameter: 'page[size]' }] });
      await expect(h.client.listUserBookshelves({ userId: '1', pageSize: -1 }, app())).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: [{ parameter: 'page[size]' }] });
      await expect(h.client.listUserBookshelves({ userId: '1', after: 'garbage' }, app())).rejects.toMatchObject({ details: [{ reason: 'invalid_cursor' }] });
      expect((await h.client.listUserBookshelves({ userId: '987654321987' }, app())).bookshelves).toEqual([]);
    });
  });

  describe('UpdateBookshelf and DeleteBookshelf', () => {
    it('changes only what is set and moves date_modified; an empty change writes nothing', async () => {
      const owner = freshUserId();
      const shelf = await create(owner, { name: 'Before', description: 'd', color: '#000000' });
      const { bookshelf: same } = await h.client.updateBookshelf({ id: shelf.id }, user(owner));
      expect(same).toEqual(shelf);
      const { bookshelf: changed } = await h.client.updateBookshelf({ id: shelf.id, name: ' After ', privacy: PUBLIC }, user(owner));
      expect(changed).toMatchObject({ name: 'After', description: 'd', color: '#000000', privacy: PUBLIC, order: shelf.order });
      expect(timestampDate(changed!.dateModified!).getTime()).toBeGreaterThanOrEqual(timestampDate(shelf.dateModified!).getTime());
      await expect(h.client.updateBookshelf({ id: shelf.id, color: 'blue' }, user(owner))).rejects.toMatchObject(invalid('/data/attributes/color'));
      await expect(h.client.updateBookshelf({ id: shelf.id, name: '' }, user(owner))).rejects.toMatchObject(invalid('/data/attributes/name'));
      expect((await h.client.getBookshelf({ id: shelf.id }, user(owner))).bookshelf).toEqual(changed);
    });

    it('lets the owner write a private shelf with write_bookshelves alone', async () => {
      const owner = freshUserId();
      const shelf = await create(owner, { privacy: PRIVATE });
      const { bookshelf } = await h.client.updateBookshelf({ id: shelf.id, order: 9 }, user(owner, ['write_bookshelves']));
      expect(bookshelf?.order).toBe(9);
    });

    it('deletes a shelf; unknown and malformed ids are NOT_FOUND', async () => {
      const owner = freshUserId();
      const shelf = await create(owner);
      await h.client.deleteBookshelf({ id: shelf.id }, user(owner));
      await expect(h.client.getBookshelf({ id: shelf.id }, user(owner))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(h.client.deleteBookshelf({ id: shelf.id }, user(owner))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(h.client.updateBookshelf({ id: '0', name: 'x' }, user(owner))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });

  it('publishes BookshelfCreated, BookshelfUpdated and BookshelfDeleted to Kafka through the outbox (an empty change publishes nothing)', async () => {
    const owner = freshUserId();
    const shelf = await create(owner, { name: 'Evented', description: 'secret-ish', privacy: PRIVATE, color: '#123456' });
    await h.client.updateBookshelf({ id: shelf.id }, user(owner));
    await h.client.updateBookshelf({ id: shelf.id, privacy: PUBLIC }, user(owner));
    await h.client.deleteBookshelf({ id: shelf.id }, user(owner));
    const events = await h.readEvents(Topics.bookshelvesBookshelf, [shelf.id]);
    expect(events.map((event) => event.payload.case)).toEqual(['bookshelfCreated', 'bookshelfUpdated', 'bookshelfDeleted']);
    const snapshots = events.map((event) => (event.payload.value as { bookshelf: { ownerId: string; name: string; privacy: number; color: string } }).bookshelf);
    expect(snapshots[0]).toMatchObject({ bookshelfId: shelf.id, ownerId: owner, name: 'Evented', privacy: PRIVATE, color: '#123456' });
    expect(snapshots[1]).toMatchObject({ privacy: PUBLIC });
    expect(snapshots[2]).toMatchObject({ privacy: PUBLIC, name: 'Evented' });
    expect(events.every((event) => event.key === shelf.id)).toBe(true);
  });
});

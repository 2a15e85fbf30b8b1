import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import type { EventConsumer, EventPayloadInit } from '@inkwell/events';
import { createLogger } from '@inkwell/logging';
import { BookshelfPrivacy } from '@inkwell/proto/bookshelves';
import { SortDirection, StorySortField } from '@inkwell/proto/stories';
import { createTestTopics, eventually, type TestTopics } from '@inkwell/testing';
import { createBookshelfCopyConsumer } from '../src/consumers/bookshelf-copy.consumer.js';
import { BookshelfCopyRepository } from '../src/repositories/bookshelf-copy.repository.js';
import { BookshelfCopyService } from '../src/services/bookshelf-copy.service.js';
import { makeStory } from './factories.js';
import { caller, startStories, type StoriesHarness } from './harness.js';

const logger = createLogger('stories-shelf-copy-test');
const OWNER = '701';
const owner = () => caller({ userId: OWNER }, ['read_bookshelves']);
const stranger = () => caller({ userId: '702' }, ['read_bookshelves']);
const T0 = Date.UTC(2026, 0, 1);
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

interface ShelfState {
  id: string;
  privacy: BookshelfPrivacy;
  modified: Date;
}

interface ItemState {
  id: string;
  shelfId: string;
  storyId: string;
  read: boolean;
  added: Date;
}

describe('the copy of bookshelf membership, fed by the bookshelves events', () => {
  let h: StoriesHarness;
  let kafka: TestTopics;
  let shelfTopic: string;
  let itemTopic: string;
  let consumer: EventConsumer;
  let shelfIds = 8000;
  let itemIds = 90_000;
  let clock = 0;

  const newConsumer = (groupId: string) =>
    createBookshelfCopyConsumer({ kafka: kafka.kafka, pool: h.pool, copy: new BookshelfCopyService(new BookshelfCopyRepository(h.pool)), logger, topics: kafka.topics, groupId });

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_shelf_copy');
    kafka = await createTestTopics('stories-shelf-copy', ['shelf', 'item']);
    [shelfTopic, itemTopic] = kafka.topics as [string, string];
    consumer = newConsumer(kafka.groupId);
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await kafka?.close();
    await h?.close();
  });

  /** Events occur one millisecond apart, in the order the test sends them, unless told otherwise. */
  const occurred = () => new Date(T0 + ++clock);

  const shelfSnapshot = (shelf: ShelfState) => ({
    bookshelfId: shelf.id,
    ownerId: OWNER,
    name: 'Shelf',
    privacy: shelf.privacy,
    color: '#112233',
    order: 0,
    dateCreated: timestampFromDate(at(0)),
    dateModified: timestampFromDate(shelf.modified),
  });
  const itemSnapshot = (item: ItemState) => ({
    itemId: item.id,
    bookshelfId: item.shelfId,
    ownerId: OWNER,
    storyId: item.storyId,
    read: item.read,
    dateAdded: timestampFromDate(item.added),
  });

  const sendShelf = (kind: 'bookshelfCreated' | 'bookshelfUpdated' | 'bookshelfDeleted', shelf: ShelfState, options: { eventId?: string; occurredAt?: Date } = {}) =>
    kafka.sendEvent(shelfTopic, shelf.id, { case: kind, value: { bookshelf: shelfSnapshot(shelf) } } as EventPayloadInit, { occurredAt: occurred(), ...options });
  const sendItem = (kind: 'bookshelfItemAdded' | 'bookshelfItemUpdated' | 'bookshelfItemRemoved', item: ItemState, options: { eventId?: string; occurredAt?: Date } = {}) =>
    kafka.sendEvent(itemTopic, item.id, { case: kind, value: { item: itemSnapshot(item), ...(kind === 'bookshelfItemUpdated' ? { previousRead: !item.read } : {}) } } as EventPayloadInit, {
      occurredAt: occurred(),
      ...options,
    });

  const newShelf = (privacy = BookshelfPrivacy.PUBLIC): ShelfState => ({ id: String(++shelfIds), privacy, modified: at(1) });
  const newItem = (shelf: ShelfState, storyId: string, added: Date): ItemState => ({ id: String(++itemIds), shelfId: shelf.id, storyId, read: false, added });

  const processed = async (eventId: string, groupId = kafka.groupId) =>
    (await h.pool.query('SELECT 1 FROM processed_events WHERE consumer = $1 AND event_id = $2', [groupId, eventId])).rowCount === 1;

  /**
   * Waits until the consumer has handled everything sent so far on both topics: each topic has
   * one partition, so once a marker event sent after them is processed, so are they.
   */
  async function settled(): Promise<void> {
    const marker = newShelf();
    const shelfMarker = await sendShelf('bookshelfCreated', marker);
    const itemMarker = await sendItem('bookshelfItemRemoved', newItem(marker, '1', at(0)));
    await eventually(async () => (await processed(shelfMarker)) && (await processed(itemMarker)), { timeoutMs: 20_000, what: 'the consumer' });
  }

  /** The shelf as a caller lists it, newest addition first; an error's reason instead of a list. */
  const listed = (shelf: ShelfState, as = owner, unread?: boolean) =>
    h.client
      .listStories({ filter: { bookshelfId: shelf.id, ...(unread === undefined ? {} : { unread }) }, sort: { field: StorySortField.DATE_ADDED, direction: SortDirection.DESCENDING }, pageSize: 100 }, as())
      .then(
        (page) => page.stories.map((story) => story.id),
        (error: { details?: { reason: string }[] }) => error.details?.[0]?.reason ?? String(error),
      );

  const untilListed = (shelf: ShelfState, expected: string[] | string, as = owner, unread?: boolean) =>
    eventually(async () => JSON.stringify(await listed(shelf, as, unread)) === JSON.stringify(expected), { timeoutMs: 20_000, what: 'the consumer' });

  const copyRows = async () => ({
    shelves: (await h.pool.query('SELECT * FROM bookshelves ORDER BY id')).rows,
    items: (await h.pool.query('SELECT * FROM bookshelf_items ORDER BY id')).rows,
  });

  it('adds, marks read and removes items as the events arrive', async () => {
    const shelf = newShelf();
    const [a, b, c] = [await makeStory(h.pool), await makeStory(h.pool), await makeStory(h.pool)];
    await sendShelf('bookshelfCreated', shelf);
    const items = [newItem(shelf, a.id, at(10)), newItem(shelf, b.id, at(20)), newItem(shelf, c.id, at(30))];
    for (const item of items) await sendItem('bookshelfItemAdded', item);
    await untilListed(shelf, [c.id, b.id, a.id]);
    expect(await listed(shelf, stranger)).toEqual([c.id, b.id, a.id]);

    await sendItem('bookshelfItemUpdated', { ...items[1]!, read: true });
    await untilListed(shelf, [c.id, a.id], owner, true);
    expect(await listed(shelf, owner, false)).toEqual([c.id, b.id, a.id]);

    await sendItem('bookshelfItemRemoved', items[0]!);
    await untilListed(shelf, [c.id, b.id]);
  });

  it('follows privacy changes, and never lets an older snapshot undo a newer one', async () => {
    const shelf = newShelf();
    const story = await makeStory(h.pool);
    await sendShelf('bookshelfCreated', shelf);
    await sendItem('bookshelfItemAdded', newItem(shelf, story.id, at(10)));
    await untilListed(shelf, [story.id], stranger);

    const hidden = { ...shelf, privacy: BookshelfPrivacy.PRIVATE, modified: at(5) };
    await sendShelf('bookshelfUpdated', hidden);
    await untilListed(shelf, [], stranger);
    expect(await listed(shelf, owner)).toEqual([story.id]);
    expect(await listed(shelf, () => caller({ userId: OWNER }))).toBe('insufficient_scope');

    // A late snapshot from before the change (older date_modified), though it occurred later.
    await sendShelf('bookshelfUpdated', shelf);
    await settled();
    expect(await listed(shelf, stranger)).toEqual([]);

    await sendShelf('bookshelfUpdated', { ...shelf, modified: at(6) });
    await untilListed(shelf, [story.id], stranger);
  });

  it('empties a deleted shelf at once, and nothing older brings it back', async () => {
    const shelf = newShelf();
    const story = await makeStory(h.pool);
    await sendShelf('bookshelfCreated', shelf);
    const item = newItem(shelf, story.id, at(10));
    await sendItem('bookshelfItemAdded', item);
    await untilListed(shelf, [story.id]);

    // The item's removal travels on the other topic and has not arrived yet.
    await sendShelf('bookshelfDeleted', shelf);
    await untilListed(shelf, []);
    expect(await listed(shelf, owner, true)).toBe('unread_requires_owned_bookshelf');

    await sendShelf('bookshelfCreated', shelf);
    await sendShelf('bookshelfUpdated', { ...shelf, modified: at(50) });
    await sendItem('bookshelfItemUpdated', { ...item, read: true });
    await settled();
    expect(await listed(shelf)).toEqual([]);
  });

  it('applies the events of items whose story was deleted (the deletion’s own removals, and late arrivals)', async () => {
    const shelf = newShelf();
    const [kept, deleted] = [await makeStory(h.pool), await makeStory(h.pool)];
    await sendShelf('bookshelfCreated', shelf);
    const item = newItem(shelf, deleted.id, at(10));
    await sendItem('bookshelfItemAdded', newItem(shelf, kept.id, at(5)));
    await sendItem('bookshelfItemAdded', item);
    await untilListed(shelf, [deleted.id, kept.id]);

    await h.pool.query('DELETE FROM stories WHERE id = $1', [deleted.id]);
    await untilListed(shelf, [kept.id]);
    // The bookshelves service removes the story's items after its deletion; an addition sent
    // before the deletion may arrive after it. Each is applied (recorded as processed), not skipped.
    const removed = await sendItem('bookshelfItemRemoved', item);
    const lateAddition = await sendItem('bookshelfItemAdded', newItem(shelf, deleted.id, at(20)));
    await eventually(async () => (await processed(removed)) && (await processed(lateAddition)), { timeoutMs: 20_000, what: 'the consumer' });
    expect(await listed(shelf)).toEqual([kept.id]);
  });

  it('changes nothing when an event is delivered again', async () => {
    const shelf = newShelf();
    const [a, b] = [await makeStory(h.pool), await makeStory(h.pool)];
    await sendShelf('bookshelfCreated', shelf);
    const first = newItem(shelf, a.id, at(10));
    const second = newItem(shelf, b.id, at(20));
    const added = await sendItem('bookshelfItemAdded', first);
    await sendItem('bookshelfItemAdded', second);
    const readAt = occurred();
    const markedRead = await sendItem('bookshelfItemUpdated', { ...first, read: true }, { occurredAt: readAt });
    await sendItem('bookshelfItemUpdated', { ...first, read: false });
    const removed = await sendItem('bookshelfItemRemoved', second);
    // The removal is the last of them on its partition.
    await eventually(() => processed(removed), { timeoutMs: 20_000, what: 'the consumer' });
    expect(await listed(shelf, owner, true)).toEqual([a.id]);
    const before = await copyRows();

    await sendItem('bookshelfItemUpdated', { ...first, read: true }, { eventId: markedRead, occurredAt: readAt });
    await sendItem('bookshelfItemAdded', second, { eventId: added });
    await sendItem('bookshelfItemRemoved', second, { eventId: removed });
    // The same old events under new event ids, as after the dedupe rows expired: the copy's own
    // versions (event time, removal) must hold.
    await sendItem('bookshelfItemUpdated', { ...first, read: true }, { occurredAt: readAt });
    await sendItem('bookshelfItemAdded', second, { occurredAt: at(0) });
    await settled();
    expect(await listed(shelf, owner, true)).toEqual([a.id]);
    expect(await listed(shelf, owner)).toEqual([a.id]);
    const ofShelf = (rows: { bookshelf_id: string }[]) => rows.filter((row) => row.bookshelf_id === shelf.id);
    expect(ofShelf((await copyRows()).items)).toEqual(ofShelf(before.items));
  });

  it('lists a story added again once, by its newest item, whichever item id arrives first', async () => {
    const shelf = newShelf();
    const [early, story, late] = [await makeStory(h.pool), await makeStory(h.pool), await makeStory(h.pool)];
    await sendShelf('bookshelfCreated', shelf);
    const earlyItem = newItem(shelf, early.id, at(15));
    await sendItem('bookshelfItemAdded', earlyItem);
    await sendItem('bookshelfItemAdded', newItem(shelf, late.id, at(25)));
    const removedItem = newItem(shelf, story.id, at(10));
    const readdedItem = newItem(shelf, story.id, at(30));

    // The new item's addition overtakes the old item's addition and removal (other partitions).
    await sendItem('bookshelfItemAdded', readdedItem);
    await untilListed(shelf, [story.id, late.id, early.id]);
    await sendItem('bookshelfItemAdded', removedItem);
    await settled();
    expect(await listed(shelf)).toEqual([story.id, late.id, early.id]);
    await sendItem('bookshelfItemRemoved', removedItem);
    await settled();
    expect(await listed(shelf)).toEqual([story.id, late.id, early.id]);

    // And in the other order: the old item's events first, then a newer item.
    const again = newItem(shelf, early.id, at(40));
    await sendItem('bookshelfItemRemoved', earlyItem);
    await sendItem('bookshelfItemAdded', again);
    await untilListed(shelf, [early.id, story.id, late.id]);
  });

  it('leaves the copy unchanged when both topics are replayed from the beginning', async () => {
    await settled();
    const before = await copyRows();
    expect(before.items.length).toBeGreaterThan(10);
    // A consumer with a group (and dedupe rows) of its own applies every event again.
    const replayGroup = `${kafka.groupId}-replay`;
    const replay = newConsumer(replayGroup);
    await replay.start();
    try {
      const last = await h.pool.query<{ n: string }>('SELECT count(*) AS n FROM processed_events WHERE consumer = $1', [kafka.groupId]);
      await eventually(async () => (await h.pool.query<{ n: string }>('SELECT count(*) AS n FROM processed_events WHERE consumer = $1', [replayGroup])).rows[0]!.n === last.rows[0]!.n, { timeoutMs: 20_000, what: 'the consumer' });
    } finally {
      await replay.stop();
    }
    expect(await copyRows()).toEqual(before);
  });

  it('answers the owned-shelf rule from the copy: unknown shelves are nobody’s', async () => {
    expect(await listed({ id: '987654', privacy: BookshelfPrivacy.PUBLIC, modified: at(0) }, owner, false)).toBe('unread_requires_owned_bookshelf');
    await expect(h.client.listStories({ filter: { bookshelfId: '987654' } }, owner())).resolves.toMatchObject({ stories: [] });
    await expect(h.client.listStories({ filter: { bookshelfId: '987654', unread: true } }, owner())).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
  });
});

import { randomUUID } from 'node:crypto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventConsumer } from '@inkwell/events';
import { createKnownStoryConsumer } from '@inkwell/known-stories';
import { BookshelfPrivacy } from '@inkwell/proto/bookshelves';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import { StorySnapshotSchema } from '@inkwell/proto/stories';
import { Topics } from '@inkwell/proto/topics';
import { createTestTopics, eventually, type TestTopics } from '@inkwell/testing';
import { StoryCopyRepository } from '../src/repositories/story-copy.repository.js';
import { freshUserId, logger, startBookshelvesHarness, user, type BookshelvesHarness } from './harness.js';
import { storyMaker } from './stories.js';

describe('the stories consumer keeps shelves in step with stories.story.v1', () => {
  let h: BookshelvesHarness;
  let kafka: TestTopics;
  let topic: string;
  let consumer: EventConsumer;
  let stories: ReturnType<typeof storyMaker>;

  beforeAll(async () => {
    h = await startBookshelvesHarness('inkwell_test_bookshelves_events');
    stories = storyMaker(h);
    kafka = await createTestTopics('bookshelves-stories', ['stories']);
    topic = kafka.topics[0]!;
    consumer = createKnownStoryConsumer({ service: 'bookshelves', kafka: kafka.kafka, pool: h.pool, logger, topics: [topic], groupId: kafka.groupId, store: (client) => new StoryCopyRepository(client) });
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await kafka?.close();
    await h?.close();
  });

  /** The stories service's real events about story `id` (its outbox), oldest first, as raw envelopes. */
  async function storyEvents(id: string): Promise<Buffer[]> {
    const { rows } = await h.stories.pool.query<{ payload: Buffer }>('SELECT payload FROM outbox WHERE topic = $1 AND key = $2 ORDER BY id', [Topics.storiesStory, id]);
    return rows.map((row) => row.payload);
  }

  /** Delivers envelopes to the consumer's topic, as Kafka would. */
  async function deliver(storyId: string, envelopes: Buffer[]): Promise<void> {
    await kafka.send(topic, envelopes.map((value) => ({ key: storyId, value })));
  }

  /** The same envelope with a fresh event id: a replay that event-id dedupe cannot catch. */
  function withFreshId(envelope: Buffer): Buffer {
    const decoded = fromBinary(EventEnvelopeSchema, envelope);
    decoded.eventId = randomUUID();
    return Buffer.from(toBinary(EventEnvelopeSchema, decoded));
  }

  /** Sends a StoryCreated for a throwaway story and waits until it is recorded: everything sent before it has been applied. */
  async function drained(): Promise<void> {
    const marker = String(800_000_000 + Math.floor(Math.random() * 100_000_000));
    const story = create(StorySnapshotSchema, { storyId: marker, authorId: '1', published: false, dateModified: timestampFromDate(new Date()) });
    await kafka.sendEvent(topic, marker, { case: 'storyCreated', value: { story } });
    await eventually(async () => (await h.pool.query('SELECT 1 FROM known_stories WHERE id = $1', [marker])).rowCount === 1, { timeoutMs: 20_000 });
  }

  const counts = async (shelfId: string, owner: string) => {
    const { bookshelf } = await h.client.getBookshelf({ id: shelfId }, user(owner));
    return { stories: bookshelf!.numStories, unread: bookshelf!.numUnread };
  };
  const listed = async (shelfId: string, who: ReturnType<typeof user>) => (await h.client.listBookshelfItems({ bookshelfId: shelfId }, who)).items.map((item) => item.storyId);
  /** Every value derived from the stories, to compare before and after a replay. */
  const derived = async () =>
    (await h.pool.query('SELECT id, num_items, num_stories, num_unread FROM bookshelves ORDER BY id')).rows.concat(
      (await h.pool.query('SELECT id, bookshelf_id, story_id, read FROM bookshelf_items ORDER BY id')).rows,
      (await h.pool.query('SELECT id, author_id, published, deleted, version FROM known_stories WHERE id < 800000000 ORDER BY id')).rows,
    );

  it('stops counting an unpublished story and counts it again once republished; its author still sees it listed', async () => {
    const author = freshUserId();
    const reader = freshUserId();
    const story = await stories.published(author);
    const other = await stories.published(author);
    const shelf = (await h.client.createBookshelf({ userId: reader, name: 'Reading', privacy: BookshelfPrivacy.PUBLIC }, user(reader))).bookshelf!.id;
    await h.client.addBookshelfItem({ bookshelfId: shelf, storyId: story }, user(reader));
    await h.client.addBookshelfItem({ bookshelfId: shelf, storyId: other, read: true }, user(reader));
    expect(await counts(shelf, reader)).toEqual({ stories: 2, unread: 1 });

    await stories.setPublished(author, story, false);
    await deliver(story, await storyEvents(story));
    await eventually(async () => (await counts(shelf, reader)).stories === 1, { timeoutMs: 20_000 });
    expect(await counts(shelf, reader)).toEqual({ stories: 1, unread: 0 });
    expect(await listed(shelf, user(reader))).toEqual([other]);
    expect(await listed(shelf, user(author))).toEqual([story, other]);
    expect(await listed(shelf, user(author, ['read_bookshelves']))).toEqual([other]);

    await stories.setPublished(author, story, true);
    await deliver(story, (await storyEvents(story)).slice(-1));
    await eventually(async () => (await counts(shelf, reader)).stories === 2, { timeoutMs: 20_000 });
    expect(await counts(shelf, reader)).toEqual({ stories: 2, unread: 1 });
    expect(await listed(shelf, user(reader))).toEqual([story, other]);
  });

  it('takes a deleted story off every shelf with one BookshelfItemRemoved each', async () => {
    const author = freshUserId();
    const [ann, bob] = [freshUserId(), freshUserId()];
    const story = await stories.published(author);
    const keep = await stories.published(author);
    const annShelf = (await h.client.createBookshelf({ userId: ann, name: 'A' }, user(ann))).bookshelf!.id;
    const bobShelf = (await h.client.createBookshelf({ userId: bob, name: 'B' }, user(bob))).bookshelf!.id;
    const annItem = (await h.client.addBookshelfItem({ bookshelfId: annShelf, storyId: story }, user(ann))).item!;
    const bobItem = (await h.client.addBookshelfItem({ bookshelfId: bobShelf, storyId: story, read: true }, user(bob))).item!;
    await h.client.addBookshelfItem({ bookshelfId: bobShelf, storyId: keep }, user(bob));

    await stories.remove(author, story);
    await deliver(story, await storyEvents(story));
    await eventually(async () => (await counts(annShelf, ann)).stories === 0, { timeoutMs: 20_000 });
    expect(await counts(bobShelf, bob)).toEqual({ stories: 1, unread: 1 });
    expect(await listed(bobShelf, user(bob))).toEqual([keep]);
    await expect(h.client.updateBookshelfItem({ bookshelfId: annShelf, itemId: annItem.id, read: true }, user(ann))).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const removed = await h.readEvents(Topics.bookshelvesItem, [annItem.id, bobItem.id]);
    const removals = removed.filter((event) => event.payload.case === 'bookshelfItemRemoved').map((event) => event.key);
    expect(removals.sort()).toEqual([annItem.id, bobItem.id].sort());
    // The deleted story cannot be shelved again.
    await expect(h.client.addBookshelfItem({ bookshelfId: annShelf, storyId: story }, user(ann))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('leaves every derived value unchanged when the same events arrive again, or late and out of order', async () => {
    const author = freshUserId();
    const reader = freshUserId();
    const story = await stories.published(author);
    const shelf = (await h.client.createBookshelf({ userId: reader, name: 'Replay' }, user(reader))).bookshelf!.id;
    await h.client.addBookshelfItem({ bookshelfId: shelf, storyId: story }, user(reader));
    await stories.setPublished(author, story, false);
    await stories.setPublished(author, story, true);
    await stories.setPublished(author, story, false);
    const events = await storyEvents(story);
    await deliver(story, events);
    await drained();
    const settled = await derived();
    expect(await counts(shelf, reader)).toEqual({ stories: 0, unread: 0 });

    // The same records again (same event ids), then fresh-id copies in reverse order.
    await deliver(story, events);
    await deliver(story, [...events].reverse().map(withFreshId));
    await drained();
    expect(await derived()).toEqual(settled);
    expect(await counts(shelf, reader)).toEqual({ stories: 0, unread: 0 });
  });

  it('records the GetStory answer when adding, moving other shelves’ counts, but never over a newer state', async () => {
    const author = freshUserId();
    const [ann, bob] = [freshUserId(), freshUserId()];
    const story = await stories.published(author);
    const annShelf = (await h.client.createBookshelf({ userId: ann, name: 'A' }, user(ann))).bookshelf!.id;
    const bobShelf = (await h.client.createBookshelf({ userId: bob, name: 'B' }, user(bob))).bookshelf!.id;
    await h.client.addBookshelfItem({ bookshelfId: annShelf, storyId: story }, user(ann));

    // The copy learns of the unpublication; the story is republished but that event is not delivered yet.
    await stories.setPublished(author, story, false);
    await deliver(story, (await storyEvents(story)).slice(-1));
    await eventually(async () => (await counts(annShelf, ann)).stories === 0, { timeoutMs: 20_000 });
    await stories.setPublished(author, story, true);
    // Adding it elsewhere asks the stories service, whose newer answer counts on both shelves at once.
    await h.client.addBookshelfItem({ bookshelfId: bobShelf, storyId: story }, user(bob));
    expect(await counts(annShelf, ann)).toEqual({ stories: 1, unread: 1 });
    expect(await counts(bobShelf, bob)).toEqual({ stories: 1, unread: 1 });
    // The late event changes nothing.
    await deliver(story, (await storyEvents(story)).slice(-1));
    await drained();
    expect(await counts(annShelf, ann)).toEqual({ stories: 1, unread: 1 });

    // A state newer than what the stories service answers (an event from its future) is kept.
    const future = create(StorySnapshotSchema, { storyId: story, authorId: author, published: false, dateModified: timestampFromDate(new Date(Date.now() + 3_600_000)) });
    await kafka.sendEvent(topic, story, { case: 'storyUpdated', value: { story: future, previousPublished: true } });
    await eventually(async () => (await counts(annShelf, ann)).stories === 0, { timeoutMs: 20_000 });
    const carl = freshUserId();
    const carlShelf = (await h.client.createBookshelf({ userId: carl, name: 'C' }, user(carl))).bookshelf!.id;
    await h.client.addBookshelfItem({ bookshelfId: carlShelf, storyId: story }, user(carl));
    expect(await counts(carlShelf, carl)).toEqual({ stories: 0, unread: 0 });
    expect(await counts(annShelf, ann)).toEqual({ stories: 0, unread: 0 });
  });

  it('keeps num_stories and num_unread equal to a recount of the items after all of the above', async () => {
    const { rows } = await h.pool.query<{ id: string; stored: string; recount: string }>(
      `SELECT b.id, concat_ws('/', b.num_items, b.num_stories, b.num_unread) AS stored,
              concat_ws('/', count(i.id), count(i.id) FILTER (WHERE s.published), count(i.id) FILTER (WHERE s.published AND NOT i.read)) AS recount
       FROM bookshelves b LEFT JOIN bookshelf_items i ON i.bookshelf_id = b.id LEFT JOIN known_stories s ON s.id = i.story_id
       GROUP BY b.id ORDER BY b.id`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.stored, `shelf ${row.id}`).toBe(row.recount);
  });
});

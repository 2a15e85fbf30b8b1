import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { createServiceBatchConsumer, occurredAtOf, type ConsumerWiring, type EventConsumer } from '@inkwell/events';
import { BookshelfPrivacy, type BookshelfItemSnapshot, type BookshelfSnapshot } from '@inkwell/proto/bookshelves';
import type { EventEnvelope } from '@inkwell/proto/events';
import { Topics } from '@inkwell/proto/topics';
import type pg from 'pg';
import type { ShelfItemSnapshot, ShelfSnapshot } from '../domain/bookshelf.js';
import type { Tx } from '../repositories/story.rows.js';
import type { BookshelfCopyService } from '../services/bookshelf-copy.service.js';

/**
 * Options of the consumer that keeps the copy of bookshelf membership (group `stories-bookshelves`,
 * also the name of its dedupe rows; topics bookshelves.bookshelf.v1 and bookshelves.item.v1 by default).
 */
export interface BookshelfCopyConsumerOptions extends ConsumerWiring {
  pool: pg.Pool;
  copy: BookshelfCopyService;
}

/**
 * Kafka input of the bookshelves events: shelves (owner, privacy, deletion) and their items
 * (story, read flag, date added), copied for filter[bookshelf], filter[unread] and
 * sort=date_added, a fetched batch per transaction. Idempotent through the dedupe rows (event ids), and the copy itself ignores
 * stale snapshots, so redelivery and replays change nothing.
 */
export function createBookshelfCopyConsumer(options: BookshelfCopyConsumerOptions): EventConsumer {
  return createServiceBatchConsumer(options, { groupId: 'stories-bookshelves', topics: [Topics.bookshelvesBookshelf, Topics.bookshelvesItem] }, async (envelopes, client) => {
    // An item's copy locks its story's row; the stats consumer locks several: both in lock order.
    await options.copy.lockStories(client, envelopes.flatMap((envelope) => (itemOf(envelope)?.storyId ?? [])));
    for (const envelope of envelopes) await applyEvent(options.copy, envelope, client);
  });
}

/** The item a bookshelves event carries, if it is an item event. */
function itemOf(envelope: EventEnvelope): BookshelfItemSnapshot | undefined {
  const payload = envelope.payload;
  return payload.case === 'bookshelfItemAdded' || payload.case === 'bookshelfItemUpdated' || payload.case === 'bookshelfItemRemoved' ? payload.value.item : undefined;
}

/** Applies one bookshelves event to the copy. */
async function applyEvent(copy: BookshelfCopyService, envelope: EventEnvelope, client: Tx): Promise<void> {
  const at = occurredAtOf(envelope);
  const payload = envelope.payload;
  switch (payload.case) {
    case 'bookshelfCreated':
    case 'bookshelfUpdated':
      if (payload.value.bookshelf) await copy.applyShelf(client, shelfFromProto(payload.value.bookshelf, at), at);
      return;
    case 'bookshelfDeleted':
      if (payload.value.bookshelf) await copy.deleteShelf(client, shelfFromProto(payload.value.bookshelf, at), at);
      return;
    case 'bookshelfItemAdded':
    case 'bookshelfItemUpdated':
      if (payload.value.item) await copy.applyItem(client, itemFromProto(payload.value.item, at), at);
      return;
    case 'bookshelfItemRemoved':
      if (payload.value.item) await copy.removeItem(client, itemFromProto(payload.value.item, at), at);
      return;
    default:
  }
}

const dateOr = (value: Timestamp | undefined, fallback: Date) => (value ? timestampDate(value) : fallback);

/** A shelf snapshot of the events; a privacy other than public counts as private (never shown by mistake). */
function shelfFromProto(shelf: BookshelfSnapshot, at: Date): ShelfSnapshot {
  return { id: shelf.bookshelfId, ownerId: shelf.ownerId, private: shelf.privacy !== BookshelfPrivacy.PUBLIC, dateModified: dateOr(shelf.dateModified, at) };
}

function itemFromProto(item: BookshelfItemSnapshot, at: Date): ShelfItemSnapshot {
  return { id: item.itemId, bookshelfId: item.bookshelfId, storyId: item.storyId, read: item.read, dateAdded: dateOr(item.dateAdded, at) };
}

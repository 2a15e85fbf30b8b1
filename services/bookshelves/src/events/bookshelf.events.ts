import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { EventPayloadInit } from '@inkwell/events';
import {
  BookshelfCreatedSchema,
  BookshelfDeletedSchema,
  BookshelfItemAddedSchema,
  BookshelfItemRemovedSchema,
  BookshelfItemSnapshotSchema,
  BookshelfItemUpdatedSchema,
  BookshelfPrivacy,
  BookshelfSnapshotSchema,
  BookshelfUpdatedSchema,
  type BookshelfItemSnapshot,
  type BookshelfSnapshot,
} from '@inkwell/proto/bookshelves';
import type { Bookshelf, BookshelfItem } from '../domain/bookshelf.js';

/** The event snapshot of a shelf: no description (docs/api/bookshelves.md, Events). */
function shelfSnapshot(shelf: Bookshelf): BookshelfSnapshot {
  return create(BookshelfSnapshotSchema, {
    bookshelfId: shelf.id,
    ownerId: shelf.ownerId,
    name: shelf.name,
    privacy: shelf.privacy === 'public' ? BookshelfPrivacy.PUBLIC : BookshelfPrivacy.PRIVATE,
    color: shelf.color,
    order: shelf.order,
    dateCreated: timestampFromDate(shelf.dateCreated),
    dateModified: timestampFromDate(shelf.dateModified),
  });
}

function itemSnapshot(item: BookshelfItem): BookshelfItemSnapshot {
  return create(BookshelfItemSnapshotSchema, {
    itemId: item.id,
    bookshelfId: item.bookshelfId,
    ownerId: item.ownerId,
    storyId: item.storyId,
    read: item.read,
    dateAdded: timestampFromDate(item.dateAdded),
  });
}

/** The `BookshelfCreated` outbox payload of a new shelf. */
export function bookshelfCreated(shelf: Bookshelf): EventPayloadInit {
  return { case: 'bookshelfCreated', value: create(BookshelfCreatedSchema, { bookshelf: shelfSnapshot(shelf) }) };
}

/** The `BookshelfUpdated` outbox payload: the state after the change. */
export function bookshelfUpdated(shelf: Bookshelf): EventPayloadInit {
  return { case: 'bookshelfUpdated', value: create(BookshelfUpdatedSchema, { bookshelf: shelfSnapshot(shelf) }) };
}

/** The `BookshelfDeleted` outbox payload: the last state before deletion. */
export function bookshelfDeleted(shelf: Bookshelf): EventPayloadInit {
  return { case: 'bookshelfDeleted', value: create(BookshelfDeletedSchema, { bookshelf: shelfSnapshot(shelf) }) };
}

/** The `BookshelfItemAdded` outbox payload of a new item. */
export function bookshelfItemAdded(item: BookshelfItem): EventPayloadInit {
  return { case: 'bookshelfItemAdded', value: create(BookshelfItemAddedSchema, { item: itemSnapshot(item) }) };
}

/** The `BookshelfItemRemoved` outbox payload: the last state before removal. */
export function bookshelfItemRemoved(item: BookshelfItem): EventPayloadInit {
  return { case: 'bookshelfItemRemoved', value: create(BookshelfItemRemovedSchema, { item: itemSnapshot(item) }) };
}

/** The `BookshelfItemUpdated` outbox payload: the state after the change and the read flag before it. */
export function bookshelfItemUpdated(item: BookshelfItem, previousRead: boolean): EventPayloadInit {
  return { case: 'bookshelfItemUpdated', value: create(BookshelfItemUpdatedSchema, { item: itemSnapshot(item), previousRead }) };
}

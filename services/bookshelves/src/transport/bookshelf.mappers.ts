import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  BookshelfItemSchema,
  BookshelfPrivacy,
  BookshelfSchema,
  type Bookshelf as ProtoBookshelf,
  type BookshelfItem as ProtoBookshelfItem,
  type CreateBookshelfRequest,
  type UpdateBookshelfRequest,
} from '@inkwell/proto/bookshelves';
import type { Bookshelf, BookshelfItem, Privacy } from '../domain/bookshelf.js';
import type { NewShelfInput, ShelfChanges } from '../domain/bookshelf-input.js';

/** Domain shelf → proto Bookshelf; num_unread is set exactly when the service left it on (the owner). */
export function toProtoBookshelf(shelf: Bookshelf): ProtoBookshelf {
  return create(BookshelfSchema, {
    id: shelf.id,
    userId: shelf.ownerId,
    name: shelf.name,
    description: shelf.description,
    privacy: shelf.privacy === 'public' ? BookshelfPrivacy.PUBLIC : BookshelfPrivacy.PRIVATE,
    color: shelf.color,
    order: shelf.order,
    numStories: shelf.numStories,
    ...(shelf.numUnread === undefined ? {} : { numUnread: shelf.numUnread }),
    dateCreated: timestampFromDate(shelf.dateCreated),
    dateModified: timestampFromDate(shelf.dateModified),
  });
}

/** Domain item → proto BookshelfItem. */
export function toProtoItem(item: BookshelfItem): ProtoBookshelfItem {
  return create(BookshelfItemSchema, { id: item.id, bookshelfId: item.bookshelfId, storyId: item.storyId, read: item.read, dateAdded: timestampFromDate(item.dateAdded) });
}

/** Proto privacy → domain; UNSPECIFIED (and unknown values) → undefined (the default, or unchanged). */
export function fromPrivacy(privacy: BookshelfPrivacy): Privacy | undefined {
  if (privacy === BookshelfPrivacy.PUBLIC) return 'public';
  if (privacy === BookshelfPrivacy.PRIVATE) return 'private';
  return undefined;
}

/** CreateBookshelfRequest → the new shelf it asks for (validation happens in the service). */
export function fromCreateRequest(request: CreateBookshelfRequest): NewShelfInput {
  const privacy = fromPrivacy(request.privacy);
  return {
    name: request.name,
    description: request.description,
    ...(privacy === undefined ? {} : { privacy }),
    ...(request.color === undefined ? {} : { color: request.color }),
    ...(request.order === undefined ? {} : { order: request.order }),
  };
}

/** UpdateBookshelfRequest → the changes it asks for (unset fields are absent). */
export function fromUpdateRequest(request: UpdateBookshelfRequest): ShelfChanges {
  const changes: ShelfChanges = {};
  const privacy = fromPrivacy(request.privacy);
  if (request.name !== undefined) changes.name = request.name;
  if (request.description !== undefined) changes.description = request.description;
  if (privacy !== undefined) changes.privacy = privacy;
  if (request.color !== undefined) changes.color = request.color;
  if (request.order !== undefined) changes.order = request.order;
  return changes;
}

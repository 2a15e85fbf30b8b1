import { AppError } from '@inkwell/errors';
import { BookshelfItemSchema, type BookshelfItem } from '@inkwell/proto/bookshelves';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, identifierIds, writeValues } from '../jsonapi/index.js';
import { BOOKSHELF_TYPE } from './bookshelf.resource.js';
import { STORY_TYPE } from './story.resource.js';
import { protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of bookshelf items. */
export const BOOKSHELF_ITEM_TYPE = 'bookshelf_item';

/** The bookshelf_item type (docs/api/bookshelves.md, "The bookshelf_item resource"): a story on a shelf, read or unread. */
export const BOOKSHELF_ITEM_SCHEMA = defineResourceSchema({
  type: BOOKSHELF_ITEM_TYPE,
  description: 'A story on a bookshelf.',
  attributes: { date_added: at.dateTime(undefined, { nullable: true }), read: at.boolean() },
  relationships: { bookshelf: { type: BOOKSHELF_TYPE, many: false }, story: { type: STORY_TYPE, many: false } },
});

/**
 * What POST /bookshelves/:id/items accepts: the `story` relationship (required) and `read`
 * (optional, default false). The shelf is the URL's; whether the story exists and may be seen
 * is the service's rule (422 at /data/relationships/story).
 */
export const BOOKSHELF_ITEM_CREATE = defineWriteSpec({
  resource: BOOKSHELF_ITEM_SCHEMA,
  attributes: { read: writeValues.boolean() },
  relationships: { story: { type: STORY_TYPE, many: false, id: identifierIds.numeric() } },
  requiredRelationships: ['story'],
});

/** What PATCH /bookshelves/:id/items/:item_id accepts: `read` only; the story is fixed once added (422). */
export const BOOKSHELF_ITEM_UPDATE = defineWriteSpec({
  resource: BOOKSHELF_ITEM_SCHEMA,
  attributes: BOOKSHELF_ITEM_CREATE.attributes,
});

const ITEM_FIELDS = protoResourceMapper(BookshelfItemSchema, BOOKSHELF_ITEM_SCHEMA);

/**
 * Maps a bookshelves.v1 BookshelfItem to its JSON:API resource: `date_added` in ISO 8601 UTC,
 * linkage to its bookshelf and story. No `links.self`: items have no GET-by-id endpoint
 * (docs/api/foundation.md, "Documents").
 */
export function toBookshelfItemResource(item: BookshelfItem): ResourceObject {
  return resourceObject(BOOKSHELF_ITEM_TYPE, item.id, ITEM_FIELDS.attributes(item), { relationships: ITEM_FIELDS.relationships(item) });
}

/** The item of a single-item response (add, update); a response without one is 404. */
export function bookshelfItemOf({ item }: { readonly item?: BookshelfItem }): ResourceObject {
  if (item === undefined) throw AppError.notFound('bookshelf item');
  return toBookshelfItemResource(item);
}

/** The items of a list response. */
export function bookshelfItemsOf({ items }: { readonly items: readonly BookshelfItem[] }): ResourceObject[] {
  return items.map(toBookshelfItemResource);
}

import type { MessageInitShape } from '@bufbuild/protobuf';
import { AppError } from '@inkwell/errors';
import { BookshelfPrivacySchema, BookshelfSchema, type Bookshelf, type CreateBookshelfRequestSchema, type UpdateBookshelfRequestSchema } from '@inkwell/proto/bookshelves';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, writeValues } from '../jsonapi/index.js';
import type { BodyOf } from '../routing/route-kinds.js';
import { protoEnumNames } from './proto-enum.js';
import { protoResourceMapper } from './proto-resource.js';

/** The JSON:API type of bookshelves. */
export const BOOKSHELF_TYPE = 'bookshelf';

const PRIVACY = protoEnumNames(BookshelfPrivacySchema);

/** The public values of bookshelf `privacy` (docs/api/bookshelves.md, "The bookshelf resource"): `public`, `private`. */
export const BOOKSHELF_PRIVACIES = PRIVACY.names;

/** The proto enum of a public privacy; undefined (not sent) is UNSPECIFIED: the default on create, unchanged on update. */
export const bookshelfPrivacyToProto = PRIVACY.toProto;

/**
 * The bookshelf type (docs/api/bookshelves.md, "The bookshelf resource"): `num_unread` exists only for the
 * shelf's owner; `user` is the owner.
 */
export const BOOKSHELF_SCHEMA = defineResourceSchema({
  type: BOOKSHELF_TYPE,
  description: "A user's bookshelf of stories (docs/api/bookshelves.md).",
  attributes: {
    name: at.string(),
    description: at.string(),
    privacy: at.enumeration(BOOKSHELF_PRIVACIES, undefined, { nullable: true }),
    color: at.string('`#rrggbb`.'),
    order: at.integer('Position among the owner\'s shelves.'),
    num_stories: at.integer(undefined, { minimum: 0 }),
    num_unread: at.integer('Owner only.', { minimum: 0 }),
    date_created: at.dateTime(undefined, { nullable: true }),
    date_modified: at.dateTime(undefined, { nullable: true }),
  },
  relationships: { user: { type: 'user', many: false } },
});

/**
 * What POST /users/:id/bookshelves and PATCH /bookshelves/:id accept: the W attributes of
 * docs/api/bookshelves.md, "The bookshelf resource", `name` required on create. Only types are checked here (privacy must be one of
 * its values to be sent at all); lengths, blank names and the colour format are the bookshelves
 * service's rules (docs/api/bookshelves.md), answered as 422 with the same pointers.
 */
export const BOOKSHELF_WRITE = defineWriteSpec({
  resource: BOOKSHELF_SCHEMA,
  attributes: {
    name: writeValues.string(),
    description: writeValues.string(),
    privacy: writeValues.enumeration(BOOKSHELF_PRIVACIES),
    color: writeValues.string(),
    order: writeValues.int32(),
  },
  required: ['name'],
});

const BOOKSHELF_FIELDS = protoResourceMapper(BookshelfSchema, BOOKSHELF_SCHEMA, { enums: { privacy: PRIVACY } });

/**
 * Maps a bookshelves.v1 Bookshelf to its JSON:API resource: `privacy` as `public`/`private`,
 * `num_unread` only when the service set it (the caller owns the shelf), dates in ISO 8601 UTC,
 * `user` linkage to the owner; `links.self` = PUBLIC_BASE_URL/api/v1/bookshelves/<id>.
 */
export function toBookshelfResource(shelf: Bookshelf, links: ApiLinks): ResourceObject {
  return resourceObject(BOOKSHELF_TYPE, shelf.id, BOOKSHELF_FIELDS.attributes(shelf), { relationships: BOOKSHELF_FIELDS.relationships(shelf), self: links.to(`/bookshelves/${shelf.id}`) });
}

/** The shelf of a single-shelf response (get, create, update); a response without one is 404. */
export function bookshelfOf({ bookshelf }: { readonly bookshelf?: Bookshelf }, links: ApiLinks): ResourceObject {
  if (bookshelf === undefined) throw AppError.notFound('bookshelf');
  return toBookshelfResource(bookshelf, links);
}

/** The shelves of a list response. */
export function bookshelvesOf({ bookshelves }: { readonly bookshelves: readonly Bookshelf[] }, links: ApiLinks): ResourceObject[] {
  return bookshelves.map((shelf) => toBookshelfResource(shelf, links));
}

/** POST /users/:id/bookshelves for the user `userId`: left-out members are the service's defaults. */
export function bookshelfCreateRequest(userId: string, { attributes }: BodyOf<typeof BOOKSHELF_WRITE>): MessageInitShape<typeof CreateBookshelfRequestSchema> {
  return {
    userId,
    name: attributes.name ?? '',
    description: attributes.description ?? '',
    privacy: PRIVACY.toProto(attributes.privacy),
    color: attributes.color,
    order: attributes.order,
  };
}

/** PATCH /bookshelves/:id: left-out members stay unchanged. */
export function bookshelfUpdateRequest(id: string, { attributes }: BodyOf<typeof BOOKSHELF_WRITE>): MessageInitShape<typeof UpdateBookshelfRequestSchema> {
  return {
    id,
    name: attributes.name,
    description: attributes.description,
    privacy: PRIVACY.toProto(attributes.privacy),
    color: attributes.color,
    order: attributes.order,
  };
}

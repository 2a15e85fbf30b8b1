import { BookshelfPrivacy, type Bookshelf } from '@inkwell/proto/bookshelves';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { resourceObject, type ResourceObject } from '../jsonapi/document.builder.js';
import { attributeTypes as at, defineResourceSchema, defineWriteSpec, writeValues } from '../lists/index.js';
import { timestampToApiDate } from './user.resource.js';

/** The JSON:API type of bookshelves. */
export const BOOKSHELF_TYPE = 'bookshelf';

/** The public values of bookshelf `privacy` (docs/api/bookshelves.md, "The bookshelf resource"). */
export const BOOKSHELF_PRIVACIES = ['public', 'private'] as const;
/** A public bookshelf privacy. */
export type BookshelfPrivacyValue = (typeof BOOKSHELF_PRIVACIES)[number];

const PRIVACY_TO_PROTO: Readonly<Record<BookshelfPrivacyValue, BookshelfPrivacy>> = {
  public: BookshelfPrivacy.PUBLIC,
  private: BookshelfPrivacy.PRIVATE,
};

/** The proto enum of a public privacy; undefined (not sent) is UNSPECIFIED: the default on create, unchanged on update. */
export function bookshelfPrivacyToProto(privacy: BookshelfPrivacyValue | undefined): BookshelfPrivacy {
  return privacy === undefined ? BookshelfPrivacy.UNSPECIFIED : PRIVACY_TO_PROTO[privacy];
}

function privacyOf(privacy: BookshelfPrivacy): BookshelfPrivacyValue | null {
  return BOOKSHELF_PRIVACIES.find((value) => PRIVACY_TO_PROTO[value] === privacy) ?? null;
}

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

/**
 * Maps a bookshelves.v1 Bookshelf to its JSON:API resource: `privacy` as `public`/`private`,
 * `num_unread` only when the service set it (the caller owns the shelf), dates in ISO 8601 UTC,
 * `user` linkage to the owner; `links.self` = PUBLIC_BASE_URL/api/v1/bookshelves/<id>.
 */
export function toBookshelfResource(shelf: Bookshelf, links: ApiLinks): ResourceObject {
  const attributes: Record<string, string | number | null> = {
    name: shelf.name,
    description: shelf.description,
    privacy: privacyOf(shelf.privacy),
    color: shelf.color,
    order: shelf.order,
    num_stories: shelf.numStories,
  };
  if (shelf.numUnread !== undefined) attributes.num_unread = shelf.numUnread;
  attributes.date_created = timestampToApiDate(shelf.dateCreated);
  attributes.date_modified = timestampToApiDate(shelf.dateModified);
  return resourceObject(BOOKSHELF_TYPE, shelf.id, attributes, {
    relationships: { user: { data: { type: 'user', id: shelf.userId } } },
    self: links.to(`/bookshelves/${shelf.id}`),
  });
}

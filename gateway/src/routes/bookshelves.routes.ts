import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import type { Bookshelf, BookshelfItem, BookshelvesService } from '@inkwell/proto/bookshelves';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineDocumentSpec, defineListSpec, parseCreateBody, parseDocumentQuery, parseListQuery, parseUpdateBody, type DocumentResponder } from '../lists/index.js';
import { BOOKSHELF_ITEM_CREATE, BOOKSHELF_ITEM_SCHEMA, BOOKSHELF_ITEM_UPDATE, toBookshelfItemResource } from '../resources/bookshelf-item.resource.js';
import { BOOKSHELF_SCHEMA, BOOKSHELF_WRITE, bookshelfPrivacyToProto, toBookshelfResource } from '../resources/bookshelf.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { defineRoute, type RouteDefinition } from '../routing/route.types.js';

/** What the bookshelf routes need: the bookshelves client, the link builder and the document responder. */
export interface BookshelvesRoutesDeps {
  readonly bookshelves: GrpcClient<typeof BookshelvesService>;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

const SHELF_TYPES = [USER_SCHEMA];
const SHELF_INCLUDES = ['user'];

/**
 * GET /users/:id/bookshelves (docs/api/bookshelves.md): one user's shelves in the owner's order
 * (`order`, then id; no sort, no filters), cursor pages of 20 (max 100), `include=user`.
 */
export const BOOKSHELF_LIST = defineListSpec({
  resource: BOOKSHELF_SCHEMA,
  types: SHELF_TYPES,
  includes: SHELF_INCLUDES,
  filters: {},
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/** GET/PATCH /bookshelves/:id and the response of POST /users/:id/bookshelves: `include=user` and `fields`. */
export const BOOKSHELF_DOCUMENT = defineDocumentSpec({ resource: BOOKSHELF_SCHEMA, types: SHELF_TYPES, includes: SHELF_INCLUDES });

const ITEM_TYPES = [BOOKSHELF_SCHEMA, STORY_SCHEMA, USER_SCHEMA];
const ITEM_INCLUDES = ['bookshelf', 'story', 'story.author'];

/**
 * GET /bookshelves/:id/items (docs/api/bookshelves.md): the items in the order they were added
 * (oldest first; no sort, no filters), cursor pages of 20 (max 100), `include` bookshelf, story,
 * story.author.
 */
export const BOOKSHELF_ITEM_LIST = defineListSpec({
  resource: BOOKSHELF_ITEM_SCHEMA,
  types: ITEM_TYPES,
  includes: ITEM_INCLUDES,
  filters: {},
  pagination: { kind: 'cursor', defaultSize: 20, maxSize: 100 },
});

/** The responses of POST/PATCH on items: the same `include` and `fields` as the item list. */
export const BOOKSHELF_ITEM_DOCUMENT = defineDocumentSpec({ resource: BOOKSHELF_ITEM_SCHEMA, types: ITEM_TYPES, includes: ITEM_INCLUDES});

/**
 * The bookshelf endpoints (paths relative to /api/v1, docs/api/bookshelves.md). Reads need a
 * valid token; which shelves a caller may see (private ones: the owner with read_bookshelves) is
 * the service's rule. Writes need the signed-in user with write_bookshelves; ownership (and that
 * `:id` of POST /users/:id/bookshelves is the caller) is the service's rule too. Items carry no
 * `links.self` and a new item answers 201 without `Location`: there is no GET for one item.
 */
export function bookshelvesRoutes({ bookshelves, links, documents }: BookshelvesRoutesDeps): RouteDefinition[] {
  const shelfResource = (shelf: Bookshelf | undefined) => {
    if (shelf === undefined) throw AppError.notFound('bookshelf');
    return toBookshelfResource(shelf, links);
  };
  const itemResource = (item: BookshelfItem | undefined) => {
    if (item === undefined) throw AppError.notFound('bookshelf item');
    return toBookshelfItemResource(item);
  };

  return [
    defineRoute({
      method: 'GET',
      path: '/users/:id/bookshelves',
      doc: { summary: "A user's bookshelves (private ones only for the owner, with read_bookshelves).", query: BOOKSHELF_LIST },
      params: { id: 'user' },
      async handler(request) {
        const query = parseListQuery(BOOKSHELF_LIST, request.query);
        const position = await documents.cursorStart(request, query);
        const response = await bookshelves.listUserBookshelves({ userId: request.params.id, pageSize: query.page.size, after: position.after }, { caller: request.caller });
        return documents.cursorPage(request, query, position, response.bookshelves.map((shelf) => toBookshelfResource(shelf, links)), response.nextAfter);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/users/:id/bookshelves',
      doc: { summary: 'Create a bookshelf of yours (`:id` is you).', query: BOOKSHELF_DOCUMENT, body: BOOKSHELF_WRITE },
      params: { id: 'user' },
      scope: 'write_bookshelves',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(BOOKSHELF_DOCUMENT, request.query);
        const { attributes } = parseCreateBody(BOOKSHELF_WRITE, request.body);
        const { bookshelf } = await bookshelves.createBookshelf(
          {
            userId: request.params.id,
            name: attributes.name ?? '',
            description: attributes.description ?? '',
            privacy: bookshelfPrivacyToProto(attributes.privacy),
            color: attributes.color,
            order: attributes.order,
          },
          { caller: request.caller },
        );
        const resource = shelfResource(bookshelf);
        const self = links.to(`/bookshelves/${resource.id}`);
        return documents.resource(request, query, resource, { status: 201, headers: { Location: self }, self });
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/bookshelves/:id',
      doc: { summary: 'One bookshelf.', query: BOOKSHELF_DOCUMENT, errors: ['insufficient_scope'] },
      async handler(request) {
        const query = parseDocumentQuery(BOOKSHELF_DOCUMENT, request.query);
        const { bookshelf } = await bookshelves.getBookshelf({ id: request.params.id }, { caller: request.caller });
        return documents.resource(request, query, shelfResource(bookshelf));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/bookshelves/:id',
      doc: { summary: 'Change a bookshelf of yours.', query: BOOKSHELF_DOCUMENT, body: BOOKSHELF_WRITE },
      scope: 'write_bookshelves',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(BOOKSHELF_DOCUMENT, request.query);
        const { attributes } = parseUpdateBody(BOOKSHELF_WRITE, request.body, request.params.id);
        const { bookshelf } = await bookshelves.updateBookshelf(
          {
            id: request.params.id,
            name: attributes.name,
            description: attributes.description,
            privacy: bookshelfPrivacyToProto(attributes.privacy),
            color: attributes.color,
            order: attributes.order,
          },
          { caller: request.caller },
        );
        return documents.resource(request, query, shelfResource(bookshelf));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/bookshelves/:id',
      doc: { summary: 'Delete a bookshelf of yours and its items.' },
      scope: 'write_bookshelves',
      requiresUser: true,
      async handler(request) {
        parseDocumentQuery(BOOKSHELF_DOCUMENT, request.query);
        await bookshelves.deleteBookshelf({ id: request.params.id }, { caller: request.caller });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/bookshelves/:id/items',
      doc: { summary: 'The items of a bookshelf, in the order they were added.', query: BOOKSHELF_ITEM_LIST, errors: ['insufficient_scope'] },
      async handler(request) {
        const query = parseListQuery(BOOKSHELF_ITEM_LIST, request.query);
        const position = await documents.cursorStart(request, query);
        const response = await bookshelves.listBookshelfItems({ bookshelfId: request.params.id, pageSize: query.page.size, after: position.after }, { caller: request.caller });
        return documents.cursorPage(request, query, position, response.items.map(toBookshelfItemResource), response.nextAfter);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/bookshelves/:id/items',
      doc: { summary: 'Put a story on a bookshelf of yours (a story already there is 409).', query: BOOKSHELF_ITEM_DOCUMENT, body: BOOKSHELF_ITEM_CREATE },
      scope: 'write_bookshelves',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(BOOKSHELF_ITEM_DOCUMENT, request.query);
        const { attributes, relationships } = parseCreateBody(BOOKSHELF_ITEM_CREATE, request.body);
        const { item } = await bookshelves.addBookshelfItem(
          { bookshelfId: request.params.id, storyId: relationships.story ?? '', read: attributes.read },
          { caller: request.caller },
        );
        return documents.resource(request, query, itemResource(item), { status: 201 });
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/bookshelves/:id/items/:item_id',
      doc: { summary: 'Mark an item read or unread.', query: BOOKSHELF_ITEM_DOCUMENT, body: BOOKSHELF_ITEM_UPDATE },
      scope: 'write_bookshelves',
      requiresUser: true,
      async handler(request) {
        const query = parseDocumentQuery(BOOKSHELF_ITEM_DOCUMENT, request.query);
        const { attributes } = parseUpdateBody(BOOKSHELF_ITEM_UPDATE, request.body, request.params.item_id);
        const { item } = await bookshelves.updateBookshelfItem({ bookshelfId: request.params.id, itemId: request.params.item_id, read: attributes.read }, { caller: request.caller });
        return documents.resource(request, query, itemResource(item));
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/bookshelves/:id/items/:item_id',
      doc: { summary: 'Take an item off a bookshelf of yours.' },
      scope: 'write_bookshelves',
      requiresUser: true,
      async handler(request) {
        parseDocumentQuery(BOOKSHELF_ITEM_DOCUMENT, request.query);
        await bookshelves.removeBookshelfItem({ bookshelfId: request.params.id, itemId: request.params.item_id }, { caller: request.caller });
        return { status: 204 };
      },
    }),
  ];
}

import type { GrpcClient } from '@inkwell/grpc';
import { ListBookshelfItemsRequestSchema, ListUserBookshelvesRequestSchema, BookshelvesService } from '@inkwell/proto/bookshelves';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { cursorPagination, defineDocumentSpec, defineListSpec, type DocumentResponder } from '../jsonapi/index.js';
import { BOOKSHELF_ITEM_CREATE, BOOKSHELF_ITEM_SCHEMA, BOOKSHELF_ITEM_UPDATE, bookshelfItemOf, bookshelfItemsOf } from '../resources/bookshelf-item.resource.js';
import { BOOKSHELF_SCHEMA, BOOKSHELF_WRITE, bookshelfCreateRequest, bookshelfOf, bookshelvesOf, bookshelfUpdateRequest } from '../resources/bookshelf.resource.js';
import { STORY_SCHEMA } from '../resources/story.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { rpcOf } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';

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
 * (`order`, then id; no sort, no filters), cursor pages (docs/api/lists.md), `include=user`.
 */
export const BOOKSHELF_LIST = defineListSpec({
  resource: BOOKSHELF_SCHEMA,
  types: SHELF_TYPES,
  includes: SHELF_INCLUDES,
  filters: {},
  pagination: cursorPagination(ListUserBookshelvesRequestSchema.field.pageSize),
});

/** GET/PATCH /bookshelves/:id and the response of POST /users/:id/bookshelves: `include=user` and `fields`. */
export const BOOKSHELF_DOCUMENT = defineDocumentSpec({ resource: BOOKSHELF_SCHEMA, types: SHELF_TYPES, includes: SHELF_INCLUDES });

const ITEM_TYPES = [BOOKSHELF_SCHEMA, STORY_SCHEMA, USER_SCHEMA];
const ITEM_INCLUDES = ['bookshelf', 'story', 'story.author'];

/**
 * GET /bookshelves/:id/items (docs/api/bookshelves.md): the items in the order they were added
 * (oldest first; no sort, no filters), cursor pages (docs/api/lists.md), `include` bookshelf, story,
 * story.author.
 */
export const BOOKSHELF_ITEM_LIST = defineListSpec({
  resource: BOOKSHELF_ITEM_SCHEMA,
  types: ITEM_TYPES,
  includes: ITEM_INCLUDES,
  filters: {},
  pagination: cursorPagination(ListBookshelfItemsRequestSchema.field.pageSize),
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
  const route = routeKinds({ documents, links });
  return [
    route.list({
      path: '/users/:id/bookshelves',
      doc: { summary: "A user's bookshelves (private ones only for the owner, with read_bookshelves)." },
      params: { id: 'user' },
      query: BOOKSHELF_LIST,
      toRequest: ({ params }) => ({ userId: params.id }),
      rpc: rpcOf(bookshelves, BookshelvesService.method.listUserBookshelves),
      toResources: bookshelvesOf,
    }),
    route.create({
      path: '/users/:id/bookshelves',
      doc: { summary: 'Create a bookshelf of yours (`:id` is you).' },
      params: { id: 'user' },
      query: BOOKSHELF_DOCUMENT,
      body: BOOKSHELF_WRITE,
      toRequest: ({ params, body }) => bookshelfCreateRequest(params.id, body),
      rpc: rpcOf(bookshelves, BookshelvesService.method.createBookshelf),
      toResource: bookshelfOf,
    }),
    route.read({
      path: '/bookshelves/:id',
      doc: { summary: 'One bookshelf.', errors: ['insufficient_scope'] },
      query: BOOKSHELF_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(bookshelves, BookshelvesService.method.getBookshelf),
      toResource: bookshelfOf,
    }),
    route.update({
      path: '/bookshelves/:id',
      doc: { summary: 'Change a bookshelf of yours.' },
      query: BOOKSHELF_DOCUMENT,
      body: BOOKSHELF_WRITE,
      toRequest: ({ params, body }) => bookshelfUpdateRequest(params.id, body),
      rpc: rpcOf(bookshelves, BookshelvesService.method.updateBookshelf),
      toResource: bookshelfOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/bookshelves/:id',
      doc: { summary: 'Delete a bookshelf of yours and its items.' },
      checkedQuery: BOOKSHELF_DOCUMENT,
      toRequest: ({ params }) => ({ id: params.id }),
      rpc: rpcOf(bookshelves, BookshelvesService.method.deleteBookshelf),
    }),
    route.list({
      path: '/bookshelves/:id/items',
      doc: { summary: 'The items of a bookshelf, in the order they were added.', errors: ['insufficient_scope'] },
      query: BOOKSHELF_ITEM_LIST,
      toRequest: ({ params }) => ({ bookshelfId: params.id }),
      rpc: rpcOf(bookshelves, BookshelvesService.method.listBookshelfItems),
      toResources: bookshelfItemsOf,
    }),
    route.create({
      path: '/bookshelves/:id/items',
      doc: { summary: 'Put a story on a bookshelf of yours (a story already there is 409).' },
      query: BOOKSHELF_ITEM_DOCUMENT,
      body: BOOKSHELF_ITEM_CREATE,
      toRequest: ({ params, body }) => ({ bookshelfId: params.id, storyId: body.relationships.story ?? '', read: body.attributes.read }),
      rpc: rpcOf(bookshelves, BookshelvesService.method.addBookshelfItem),
      toResource: bookshelfItemOf,
    }),
    route.update({
      path: '/bookshelves/:id/items/:item_id',
      doc: { summary: 'Mark an item read or unread.' },
      query: BOOKSHELF_ITEM_DOCUMENT,
      body: BOOKSHELF_ITEM_UPDATE,
      idParam: 'item_id',
      toRequest: ({ params, body }) => ({ bookshelfId: params.id, itemId: params.item_id, read: body.attributes.read }),
      rpc: rpcOf(bookshelves, BookshelvesService.method.updateBookshelfItem),
      toResource: bookshelfItemOf,
    }),
    route.command({
      method: 'DELETE',
      path: '/bookshelves/:id/items/:item_id',
      doc: { summary: 'Take an item off a bookshelf of yours.' },
      checkedQuery: BOOKSHELF_ITEM_DOCUMENT,
      toRequest: ({ params }) => ({ bookshelfId: params.id, itemId: params.item_id }),
      rpc: rpcOf(bookshelves, BookshelvesService.method.removeBookshelfItem),
    }),
  ];
}

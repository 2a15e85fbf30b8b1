import type { ServiceImpl } from '@inkwell/grpc';
import type { BookshelvesService } from '@inkwell/proto/bookshelves';
import type { BookshelfItemService } from '../services/bookshelf-item.service.js';
import type { BookshelfService } from '../services/bookshelf.service.js';
import { fromCreateRequest, fromUpdateRequest, toProtoBookshelf, toProtoItem } from './bookshelf.mappers.js';

/** The services behind BookshelvesService. */
export interface BookshelfHandlerDeps {
  shelves: BookshelfService;
  items: BookshelfItemService;
}

/** gRPC handlers of BookshelvesService: decode → one service call → encode. */
export function bookshelfHandlers({ shelves, items }: BookshelfHandlerDeps): ServiceImpl<typeof BookshelvesService> {
  return {
    async getBookshelf(request, ctx) {
      return { bookshelf: toProtoBookshelf(await shelves.getBookshelf(request.id, ctx.caller)) };
    },
    async batchGetBookshelves(request, ctx) {
      const page = await shelves.batchGetBookshelves(request.ids, ctx.caller);
      return { bookshelves: page.items.map(toProtoBookshelf), deferredIds: page.deferred };
    },
    async listUserBookshelves(request, ctx) {
      const page = await shelves.listUserBookshelves(request.userId, { pageSize: request.pageSize, after: request.after }, ctx.caller);
      return { bookshelves: page.shelves.map(toProtoBookshelf), nextAfter: page.nextAfter };
    },
    async createBookshelf(request, ctx) {
      return { bookshelf: toProtoBookshelf(await shelves.createBookshelf(request.userId, fromCreateRequest(request), ctx.caller)) };
    },
    async updateBookshelf(request, ctx) {
      return { bookshelf: toProtoBookshelf(await shelves.updateBookshelf(request.id, fromUpdateRequest(request), ctx.caller)) };
    },
    async deleteBookshelf(request, ctx) {
      await shelves.deleteBookshelf(request.id, ctx.caller);
      return {};
    },
    async listBookshelfItems(request, ctx) {
      const page = await items.listBookshelfItems(request.bookshelfId, { pageSize: request.pageSize, after: request.after }, ctx.caller);
      return { items: page.items.map(toProtoItem), nextAfter: page.nextAfter };
    },
    async addBookshelfItem(request, ctx) {
      return { item: toProtoItem(await items.addBookshelfItem(request.bookshelfId, request.storyId, request.read ?? false, ctx.caller)) };
    },
    async updateBookshelfItem(request, ctx) {
      return { item: toProtoItem(await items.updateBookshelfItem(request.bookshelfId, request.itemId, request.read, ctx.caller)) };
    },
    async removeBookshelfItem(request, ctx) {
      await items.removeBookshelfItem(request.bookshelfId, request.itemId, ctx.caller);
      return {};
    },
  };
}

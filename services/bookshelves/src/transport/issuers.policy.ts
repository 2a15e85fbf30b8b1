import type { IssuerTable } from '@inkwell/grpc';
import type { BookshelvesService } from '@inkwell/proto/bookshelves';

/** Only the gateway, which authenticated the API caller itself: no other process calls bookshelves. */
const GATEWAY = ['gateway'] as const;

/**
 * Which issuer may call each RPC of the bookshelves service (docs/api/foundation.md, "Internal
 * calls"): every one, the gateway only. A verified call from another issuer is PERMISSION_DENIED.
 */
export const BOOKSHELVES_ISSUERS: IssuerTable<typeof BookshelvesService> = {
  getBookshelf: GATEWAY,
  batchGetBookshelves: GATEWAY,
  listUserBookshelves: GATEWAY,
  createBookshelf: GATEWAY,
  updateBookshelf: GATEWAY,
  deleteBookshelf: GATEWAY,
  listBookshelfItems: GATEWAY,
  addBookshelfItem: GATEWAY,
  updateBookshelfItem: GATEWAY,
  removeBookshelfItem: GATEWAY,
};

import type { PreflightTable } from '@inkwell/grpc';
import type { BookshelvesService } from '@inkwell/proto/bookshelves';
import type { BookshelfService } from '../services/bookshelf.service.js';

/**
 * Who may write comes before what is written (docs/api/bookshelves.md, "Visibility and scopes"):
 * a shelf write whose values break their rules is still refused first for a shelf of someone
 * else (`403 forbidden`, or `404` when the caller cannot see it). Item writes carry no rules.
 */
export function bookshelvesPreflight(shelves: BookshelfService): PreflightTable<typeof BookshelvesService> {
  return {
    createBookshelf: async (request, ctx) => {
      shelves.authorizeCreate(request.userId, ctx.caller);
    },
    updateBookshelf: (request, ctx) => shelves.authorizeChange(request.id, ctx.caller),
  };
}

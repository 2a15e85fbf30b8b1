import { createHash } from 'node:crypto';
import type { CallerContext } from '@inkwell/grpc';
import type { ListQuery } from './list-query.parser.js';

/**
 * Who a cursor belongs to (docs/api/lists.md, "Cursor pagination"): the user, or the app for app-only tokens. User
 * tokens of different apps of one user share cursors; a request without any token (only
 * possible before authentication is enforced) is `anonymous`.
 */
export function cursorOwner(caller: CallerContext): string {
  if (caller.userId !== undefined) return `user:${caller.userId}`;
  if (caller.appId !== undefined) return `app:${caller.appId}`;
  return 'anonymous';
}

/**
 * The binding of a cursor: a SHA-256 (base64url) over the endpoint path, the normalised filters
 * (each kind's `normalise`, by filter name), the sort, the search text and the cursor's owner.
 * Two requests get the same binding exactly when they ask for the same list as the same
 * caller; `page[size]`, `include` and `fields` are left out, so they may change between pages.
 */
export function cursorBinding(query: ListQuery, endpoint: string, caller: CallerContext): string {
  const filters: [string, string][] = [];
  for (const name of Object.keys(query.filters).sort()) {
    const kind = query.spec.filters[name];
    const value = (query.filters as Record<string, unknown>)[name];
    if (kind !== undefined && value !== undefined) filters.push([name, kind.normalise(value)]);
  }
  const sort = query.sort === undefined ? '' : `${query.sort.descending ? '-' : ''}${query.sort.field}`;
  const material = JSON.stringify([endpoint, filters, sort, query.search ?? null, cursorOwner(caller)]);
  return createHash('sha256').update(material).digest('base64url');
}

/**
 * Byte budgets of answers (docs/api/foundation.md, "Byte budgets"): no list page, batch answer or
 * document grows with what one account chose to write. Sizes are counted approximately (UTF-8
 * bytes of the text, a fixed cost per item), which is all a budget needs.
 */

/** Most bytes of items one list page of a service carries; a page stops before the item that would exceed it. */
export const LIST_PAGE_MAX_BYTES = 1024 * 1024;

/** Most bytes of items one batch answer (BatchGet…) carries; the ids left out are named in `deferred_ids`. */
export const BATCH_ANSWER_MAX_BYTES = 4 * 1024 * 1024;

/** Most bytes of primary data and included resources one JSON:API list document carries. */
export const DOCUMENT_MAX_BYTES = 4 * 1024 * 1024;

/**
 * What one item costs beyond its text: ids, dates, counts and field names, counted once per item
 * so that a page of small items is still bounded by `page[size]` rather than by bytes.
 */
export const ITEM_OVERHEAD_BYTES = 512;

/**
 * The approximate encoded size of a value in bytes: UTF-8 bytes of every string, 8 per number,
 * boolean or bigint, summed through arrays and plain objects. Cheap (no encoding) and never
 * below the real text the value carries.
 */
export function approximateBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return 8;
  if (value === null || value === undefined || typeof value !== 'object') return 0;
  if (value instanceof Date) return 8;
  let total = 0;
  if (Array.isArray(value)) for (const item of value) total += approximateBytes(item);
  else for (const item of Object.values(value)) total += approximateBytes(item);
  return total;
}

/**
 * How many of `items`, from the first, fit in `budgetBytes` when each costs `sizeOf(item)` plus
 * {@link ITEM_OVERHEAD_BYTES}: never fewer than one of a non-empty list (an item larger than the
 * budget still travels alone, so every item stays reachable), never more than all.
 */
export function countWithinBudget<T>(items: readonly T[], budgetBytes: number, sizeOf: (item: T) => number = approximateBytes): number {
  let used = 0;
  for (let index = 0; index < items.length; index++) {
    used += sizeOf(items[index]!) + ITEM_OVERHEAD_BYTES;
    if (used > budgetBytes && index > 0) return index;
  }
  return items.length;
}

/** A batch answer cut to its byte budget: the items read, and the requested ids not read yet (ask again for those). */
export interface BatchPage<T> {
  items: T[];
  deferred: string[];
}

/**
 * Each caller's share of one gateway process by default (docs/api/auth.md, "Rate limits"):
 * requests worked on at once, requests waiting in line, and bytes of answers per second.
 */
export const CALLER_SHARE_DEFAULTS = { inFlight: 4, waiting: 64, bytesPerSecond: 8 * 1024 * 1024 } as const;

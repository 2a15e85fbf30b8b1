import { AppError } from '@inkwell/errors';

/** Cursor pagination (docs/api/lists.md, "Cursor pagination"): `page[size]` and an opaque `page[cursor]`. */
export interface CursorPaginationSpec {
  readonly kind: 'cursor';
  readonly defaultSize: number;
  readonly maxSize: number;
}

/** Page-number pagination (private messages): `page[number]` from 1 and `page[size]`. */
export interface NumberedPaginationSpec {
  readonly kind: 'page';
  readonly defaultSize: number;
  readonly maxSize: number;
}

/** How a list is paginated. */
export type PaginationSpec = CursorPaginationSpec | NumberedPaginationSpec;

/** The page a cursor list asks for; `cursor` is the raw `page[cursor]` (resolve it with the CursorStore). */
export interface CursorPage {
  readonly kind: 'cursor';
  readonly size: number;
  readonly cursor: string | undefined;
}

/** The page a page-numbered list asks for; `number` starts at 1. */
export interface NumberedPage {
  readonly kind: 'page';
  readonly size: number;
  readonly number: number;
}

/** The parsed page of a spec kind. */
export type PageOf<P extends PaginationSpec> = P extends CursorPaginationSpec ? CursorPage : NumberedPage;

/** Largest accepted `page[number]`, so that offsets stay far inside 32-bit integers. */
export const MAX_PAGE_NUMBER = 1_000_000;

const POSITIVE = /^[1-9]\d{0,9}$/;

/** The raw `page[...]` values of a request, each sent at most once. */
export interface RawPageParameters {
  readonly size?: string;
  readonly cursor?: string;
  readonly number?: string;
}

/**
 * Parses the page parameters (docs/api/lists.md, "Cursor pagination"; docs/api/lists.md, "Page-numbered pagination"). `page[size]`: default and maximum per spec;
 * 0, negative, non-integer or over the maximum is 400 `invalid_parameter`. `page[cursor]`
 * only on cursor lists (non-empty), `page[number]` only on page-numbered lists (1 to
 * MAX_PAGE_NUMBER); the other one is an unknown parameter (400 `invalid_parameter`).
 */
export function parsePage<P extends PaginationSpec>(raw: RawPageParameters, spec: P): PageOf<P> {
  const size = raw.size === undefined ? spec.defaultSize : positive('page[size]', raw.size, spec.maxSize, `a page size from 1 to ${spec.maxSize}`);
  if (spec.kind === 'cursor') {
    if (raw.number !== undefined) throw AppError.badParameter('page[number]', 'This list is paginated by cursor: follow links.next instead of page[number].');
    if (raw.cursor === '') throw AppError.badParameter('page[cursor]', 'The cursor is empty; omit page[cursor] for the first page.', 'invalid_cursor');
    return { kind: 'cursor', size, cursor: raw.cursor } satisfies CursorPage as PageOf<P>;
  }
  if (raw.cursor !== undefined) throw AppError.badParameter('page[cursor]', 'This list is paginated by page number: use page[number].');
  const number = raw.number === undefined ? 1 : positive('page[number]', raw.number, MAX_PAGE_NUMBER, `a page number from 1 to ${MAX_PAGE_NUMBER}`);
  return { kind: 'page', size, number } satisfies NumberedPage as PageOf<P>;
}

function positive(parameter: string, text: string, max: number, expected: string): number {
  const value = POSITIVE.test(text) ? Number(text) : Number.NaN;
  if (!(value <= max)) throw AppError.badParameter(parameter, `"${text}" is not ${expected}.`);
  return value;
}

import { AppError } from '@inkwell/errors';

/** A sort order: one field, ascending or descending. Ties are broken by id in the same direction (the service's job). */
export interface SortOrder<S extends string = string> {
  readonly field: S;
  readonly descending: boolean;
}

/** The sort fields an endpoint offers (docs/api/lists.md, "Sorting": at most one per request). */
export interface SortSpec<S extends string = string> {
  /** Field names that may be sent as `sort=field` or `sort=-field`. */
  readonly fields: readonly S[];
  /** The order without a `sort` parameter, e.g. `-date_published`; leave out for the backend's natural order. */
  readonly default?: `${NoInfer<S>}` | `-${NoInfer<S>}`;
  /** The field that ranks by the `query` text (`relevance`): without a `query` it is 400 `invalid_sort`. */
  readonly relevance?: S;
  /** Sort fields of the API that this endpoint does not offer, with the reason its 400 `invalid_sort` gives (e.g. relevance without search). */
  readonly unavailable?: Readonly<Record<string, string>>;
}

/** Reads `-field`/`field` without checking the name. */
export function sortOrderOf<S extends string>(text: `${S}` | `-${S}`): SortOrder<S> {
  return text.startsWith('-') ? { field: text.slice(1) as S, descending: true } : { field: text as S, descending: false };
}

/**
 * Parses the `sort` parameter (all its occurrences) against `spec` (docs/api/lists.md, "Sorting"):
 * absent → the default (undefined when the spec has none: the natural order); `a,b` or `sort` sent twice → 400 `too_many_sort_fields`; empty, an
 * unknown field, or one the spec lists as not offered here (with its reason) → 400 `invalid_sort`; the relevance field without a search
 * `query` → 400 `invalid_sort`. Every error names `sort` as its parameter.
 */
export function parseSort<S extends string>(values: readonly string[], spec: SortSpec<S>, hasQuery: boolean): SortOrder<S> | undefined {
  if (values.length === 0) return spec.default === undefined ? undefined : sortOrderOf(spec.default);
  if (values.length > 1 || (values[0] as string).includes(',')) {
    throw AppError.badParameter('sort', 'Sort by one field only (sort=field or sort=-field).', 'too_many_sort_fields');
  }
  const text = values[0] as string;
  const descending = text.startsWith('-');
  const field = descending ? text.slice(1) : text;
  const why = spec.unavailable?.[field];
  if (why !== undefined) throw AppError.badParameter('sort', why, 'invalid_sort');
  if (!(spec.fields as readonly string[]).includes(field)) {
    const detail = field === '' ? 'The sort parameter is empty.' : `"${field}" is not a sort field here.`;
    throw AppError.badParameter('sort', `${detail} Sort fields: ${spec.fields.join(', ')}.`, 'invalid_sort');
  }
  if (field === spec.relevance && !hasQuery) {
    throw AppError.badParameter('sort', `Sorting by ${field} needs a search: add a query parameter.`, 'invalid_sort');
  }
  return { field: field as S, descending };
}

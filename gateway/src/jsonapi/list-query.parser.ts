import { AppError } from '@inkwell/errors';
import type { QueryParams } from '../routing/route.types.js';
import { NO_INCLUDES, parseFieldset, parseInclude, type IncludeTree, type SparseFieldsets } from './include-fields.parser.js';
import type { DocumentSpec, FilterSpecs, ListSpec, ParsedFilters } from './list-spec.js';
import { parsePage, type PageOf, type PaginationSpec, type RawPageParameters } from './page.parser.js';
import { parseSort, type SortOrder } from './sort.parser.js';

/** What a request asks of a document: which relationships to include and which fields to return. */
export interface DocumentQuery {
  readonly spec: DocumentSpec;
  readonly include: IncludeTree;
  readonly fields: SparseFieldsets;
}

/** A parsed list request. `sort` is undefined only for lists without sort fields. */
export interface ListQuery<F extends FilterSpecs = FilterSpecs, S extends string = string, P extends PaginationSpec = PaginationSpec> extends DocumentQuery {
  readonly spec: ListSpec<F, S, P>;
  readonly filters: ParsedFilters<F>;
  readonly sort: SortOrder<S> | undefined;
  /** The `query` search text (trimmed); undefined when absent or blank. */
  readonly search: string | undefined;
  /** The facets asked for with `facets=` (each once, among the spec's); empty when none. */
  readonly facets: readonly string[];
  readonly page: PageOf<P>;
}

const FILTER = /^filter\[([^\]]*)\]$/;
const FIELDS = /^fields\[([^\]]*)\]$/;
const PAGE = /^page\[(size|cursor|number)\]$/;

/**
 * Parses the query string of a list request against its spec (docs/api/lists.md). Every
 * parameter is checked; the first problem in query order is thrown as a 400 with
 * `source.parameter` (checks that need the whole query, like relevance without `query`, come
 * after): an unknown parameter or filter name, or one sent twice → `invalid_parameter`; a
 * malformed filter value → `invalid_parameter`; sort errors → `too_many_sort_fields` /
 * `invalid_sort`; page errors → `invalid_parameter`; `include`/`fields` → `invalid_include` /
 * `invalid_fields`.
 */
export function parseListQuery<F extends FilterSpecs, S extends string, P extends PaginationSpec>(spec: ListSpec<F, S, P>, query: QueryParams): ListQuery<F, S, P> {
  const filterValues: Record<string, unknown> = {};
  const sortValues: string[] = [];
  const page: { -readonly [K in keyof RawPageParameters]: RawPageParameters[K] } = {};
  let search: string | undefined;
  let facets: string[] = [];
  const document = new DocumentParameters(spec);
  const seen = new Set<string>();

  query.forEach((value, name) => {
    if (name === 'sort' && spec.sort !== undefined) {
      if (value.includes('\u0000')) throw nulCharacter(name);
      sortValues.push(value);
      return;
    }
    if (seen.has(name)) throw AppError.badParameter(name, `${name} is given more than once.`);
    seen.add(name);
    if (value.includes('\u0000')) throw nulCharacter(name);
    if (document.accept(name, value)) return;
    const filter = FILTER.exec(name);
    if (filter !== null) {
      const filterName = filter[1] as string;
      const kind = Object.hasOwn(spec.filters, filterName) ? spec.filters[filterName] : undefined;
      if (kind === undefined) {
        const known = Object.keys(spec.filters);
        throw AppError.badParameter(name, `Unknown filter "${filterName}". ${known.length === 0 ? 'This list has no filters.' : `Filters here: ${known.join(', ')}.`}`);
      }
      const parsed = kind.schema.safeParse(value);
      if (!parsed.success) throw AppError.badParameter(name, `${name}: ${parsed.error.issues[0]?.message ?? 'invalid value'}.`);
      filterValues[filterName] = parsed.data;
      return;
    }
    const pageParameter = PAGE.exec(name);
    if (pageParameter !== null) {
      page[pageParameter[1] as keyof RawPageParameters] = value;
      return;
    }
    if (name === 'query' && spec.search !== undefined) {
      const text = value.trim();
      search = text === '' ? undefined : text;
      return;
    }
    if (name === 'facets' && spec.facets !== undefined) {
      facets = parseFacets(value, spec.facets);
      return;
    }
    if (name === 'sort') throw AppError.badParameter('sort', 'This list has a fixed order and cannot be sorted.', 'invalid_sort');
    throw unknownParameter(name);
  });

  return {
    spec,
    filters: filterValues as ParsedFilters<F>,
    sort: spec.sort === undefined ? undefined : parseSort(sortValues, spec.sort, search !== undefined),
    search,
    facets,
    page: parsePage(page, spec.pagination),
    include: document.include,
    fields: document.fields,
  };
}

/**
 * Parses the query string of a single-resource request (GET by id, or a write's response):
 * only `include` and `fields[type]` are accepted; anything else is 400 `invalid_parameter`.
 */
export function parseDocumentQuery(spec: DocumentSpec, query: QueryParams): DocumentQuery {
  const document = new DocumentParameters(spec);
  const seen = new Set<string>();
  query.forEach((value, name) => {
    if (seen.has(name)) throw AppError.badParameter(name, `${name} is given more than once.`);
    seen.add(name);
    if (value.includes('\u0000')) throw nulCharacter(name);
    if (!document.accept(name, value)) throw unknownParameter(name);
  });
  return { spec, include: document.include, fields: document.fields };
}

/** Collects `include` and `fields[type]`, which every document endpoint accepts. */
class DocumentParameters {
  include: IncludeTree = NO_INCLUDES;
  readonly fields = new Map<string, ReadonlySet<string>>();

  constructor(private readonly spec: DocumentSpec) {}

  accept(name: string, value: string): boolean {
    if (name === 'include') {
      this.include = parseInclude(value, this.spec.offeredIncludes);
      return true;
    }
    const fields = FIELDS.exec(name);
    if (fields === null) return false;
    const type = fields[1] as string;
    this.fields.set(type, parseFieldset(type, value, this.spec.schemas, this.spec.unavailableFields?.[type]));
    return true;
  }
}

/** `facets=a,b`: names among `offered`, duplicates once; an empty value asks for none. */
function parseFacets(value: string, offered: readonly string[]): string[] {
  if (value === '') return [];
  const names = value.split(',');
  const unknown = names.find((name) => !offered.includes(name));
  if (unknown !== undefined) throw AppError.badParameter('facets', `Unknown facet "${unknown}". Facets here: ${offered.join(', ')}.`);
  return [...new Set(names)];
}

function unknownParameter(name: string): AppError {
  return AppError.badParameter(name, `Unknown query parameter "${name}".`);
}

/** No value of the API may hold U+0000 (docs/api/lists.md, "Query parameters"). */
function nulCharacter(name: string): AppError {
  return AppError.badParameter(name, `${name} must not contain the NUL character (U+0000).`);
}

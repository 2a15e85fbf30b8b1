import type { FilterKind } from './filter-kinds.js';
import { compileIncludePaths } from './include-fields.parser.js';
import type { PaginationSpec } from './page.parser.js';
import { schemaMap, type AttributeType, type ResourceSchema, type ResourceSchemas } from './resource-schema.js';
import { sortOrderOf, type SortSpec } from './sort.parser.js';

/** The filters of a list by name (`ids` for `filter[ids]`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a kind's value type is only known per filter
export type FilterSpecs = Readonly<Record<string, FilterKind<any>>>;

/** The typed values of the filters a request sent; filters it did not send are absent. */
export type ParsedFilters<F extends FilterSpecs> = { readonly [K in keyof F]?: F[K] extends FilterKind<infer T> ? T : never };

/**
 * What a single-resource endpoint (or the response of a write) accepts: `include` and
 * `fields[type]`. `types` lists every other type the endpoint can return (included or only
 * narrowed), `includes` the include paths it offers.
 */
export interface DocumentSpecInit {
  /** The type of the primary data. */
  readonly resource: ResourceSchema;
  /** The other types reachable through `include`; `fields[type]` is accepted for these and the primary type. */
  readonly types?: readonly ResourceSchema[];
  /** Offered include paths, e.g. `['author', 'chapters', 'tags']` or `['story', 'story.author']`. */
  readonly includes?: readonly string[];
  /**
   * Fields this endpoint cannot return although the type has them, by type, with the reason:
   * naming one in `fields[type]` is 400 `invalid_fields` with that reason. Typically heavy fields
   * that only the single-resource endpoint serves (chapter content in chapter lists).
   */
  readonly unavailableFields?: Readonly<Record<string, { readonly fields: readonly string[]; readonly why: string }>>;
}

/** A checked DocumentSpecInit with its lookup tables. */
export interface DocumentSpec extends DocumentSpecInit {
  readonly schemas: ResourceSchemas;
  readonly offeredIncludes: ReadonlySet<string>;
}

/** Everything a list endpoint accepts besides include/fields: filters, sort, search, pagination. */
export interface ListSpecInit<F extends FilterSpecs, S extends string, P extends PaginationSpec> extends DocumentSpecInit {
  readonly filters: F;
  /** Leave out for lists in insertion order: then `sort` is 400 `invalid_sort`. */
  readonly sort?: SortSpec<S>;
  /**
   * Accepts a `query` search text; `maxLength` (read from the proto's rule, see proto-rules.ts) only
   * describes the limit in the API document: the owning service enforces it (docs/api/lists.md).
   */
  readonly search?: { readonly maxLength: number };
  /** The names `facets=a,b` may ask for (counts over the whole list in `meta.facets`); none when left out. */
  readonly facets?: readonly string[];
  /**
   * The list may report `meta.total`, exact up to `exactUpTo` and flagged by
   * `meta.total_is_lower_bound` beyond; it only describes the API document (the service counts).
   */
  readonly total?: { readonly exactUpTo: number };
  /** Further members of every page's `meta` (e.g. an unread count) with their types; it only describes the API document. */
  readonly meta?: Readonly<Record<string, AttributeType>>;
  readonly pagination: P;
}

/** A checked list spec (see defineListSpec). */
export interface ListSpec<F extends FilterSpecs = FilterSpecs, S extends string = string, P extends PaginationSpec = PaginationSpec>
  extends ListSpecInit<F, S, P>,
    DocumentSpec {}

/**
 * Declares what a single-resource endpoint accepts, checked at startup (throws on an include
 * path through an unknown relationship or to a type not listed in `types`).
 */
export function defineDocumentSpec(init: DocumentSpecInit): DocumentSpec {
  const schemas = schemaMap([init.resource, ...(init.types ?? [])]);
  return { ...init, schemas, offeredIncludes: compileIncludePaths(init.resource, init.includes ?? [], schemas) };
}

/**
 * Declares a list endpoint, checked at startup: include paths as in defineDocumentSpec, the
 * default sort and the relevance field among the sort fields, relevance only with a search,
 * page sizes with 1 ≤ default ≤ max.
 *
 * ```ts
 * const STORY_LIST = defineListSpec({
 *   resource: STORY_SCHEMA, types: [USER_SCHEMA, CHAPTER_SCHEMA, TAG_SCHEMA], includes: ['author', 'chapters', 'tags'],
 *   filters: { ids: filters.ids(StoryFilterSchema.field.ids), num_words: filters.integerRange(integerRule(StoryFilterSchema.field.numWordsMin)) },
 *   sort: { fields: ['date_published', 'relevance'], default: '-date_published', relevance: 'relevance' },
 *   search: { maxLength: maxChars(ListStoriesRequestSchema.field.query) },
 *   pagination: cursorPagination(ListStoriesRequestSchema.field.pageSize),
 * });
 * ```
 */
export function defineListSpec<F extends FilterSpecs, const S extends string, const P extends PaginationSpec>(init: ListSpecInit<F, S, P>): ListSpec<F, S, P> {
  const sort = init.sort;
  if (sort !== undefined) {
    const fields: readonly string[] = sort.fields;
    if (sort.default !== undefined && !fields.includes(sortOrderOf(sort.default).field)) throw new Error(`${init.resource.type} list: default sort ${sort.default} is not a sort field`);
    if (sort.relevance !== undefined && !fields.includes(sort.relevance)) throw new Error(`${init.resource.type} list: relevance field ${sort.relevance} is not a sort field`);
    if (sort.relevance !== undefined && init.search === undefined) throw new Error(`${init.resource.type} list: a relevance sort needs search`);
  }
  const { defaultSize, maxSize } = init.pagination;
  if (!(Number.isInteger(defaultSize) && defaultSize >= 1 && defaultSize <= maxSize)) throw new Error(`${init.resource.type} list: page sizes must satisfy 1 ≤ default ≤ max`);
  return { ...init, ...defineDocumentSpec(init) };
}

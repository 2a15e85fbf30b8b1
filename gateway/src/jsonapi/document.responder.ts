import { DOCUMENT_MAX_BYTES } from '@inkwell/limits';
import { ByteAllowance } from './byte-allowance.js';
import { resourceDocument, type JsonValue, type ResourceObject } from './document.builder.js';
import type { ApiRequest, ApiResponse } from '../routing/route.types.js';
import { collectionDocument, cursorLinks, numberedPageLinks } from './collection.document.js';
import { cursorBinding } from './cursor-binding.js';
import type { CursorStore } from './cursor.store.js';
import { resolveIncludes, type ResourceLoaders } from './include.resolver.js';
import type { FilterSpecs } from './list-spec.js';
import type { DocumentQuery, ListQuery } from './list-query.parser.js';
import type { CursorPaginationSpec, NumberedPaginationSpec } from './page.parser.js';
import { narrowResource } from './sparse-fieldsets.js';

/** Where a cursor list continues: the backend's `after` ('' for the first page) and the binding to store the next cursor under. */
export interface CursorPosition {
  readonly after: string;
  readonly binding: string;
}

/** What the responder needs: the cursor store and a loader per includable type. */
export interface DocumentResponderDeps {
  readonly cursors: CursorStore;
  readonly loaders: ResourceLoaders;
}

/** Options of a single-resource response: status (default 200), extra headers (e.g. `Location` with 201) and `links.self` (default: the request URL). */
export interface ResourceResponseOptions {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** The document's `links.self`, e.g. the new resource's URL in a 201 to a POST. */
  readonly self?: string;
}

/**
 * Turns backend results into JSON:API responses: resolves `include` with batch loaders,
 * applies `fields` (heavy fields opt-in) to primary and included resources, stores cursors and
 * builds the links of docs/api/foundation.md, "Documents" and docs/api/lists.md, "Cursor pagination". One instance per gateway, shared by every route.
 *
 * Every cursor list runs through `route.list` (routing/route-kinds.ts), which does, in full:
 * ```ts
 * const query = parseListQuery(STORY_LIST, request.query);
 * const position = await documents.cursorStart(request, query);          // 400 invalid_cursor
 * const { stories: items, nextAfter } = await stories.listStories({ ..., pageSize: query.page.size, after: position.after }, { caller });
 * return documents.cursorPage(request, query, position, items.map(toStoryResource), nextAfter); // undefined: over budget
 * ```
 */
export interface DocumentResponder {
  /**
   * The position a cursor list request starts at: the first page without `page[cursor]`,
   * otherwise the stored `after` of the cursor, which must be bound to this request's
   * endpoint path, filters, sort, query text and caller (400 `invalid_cursor`).
   */
  cursorStart<F extends FilterSpecs, S extends string>(request: ApiRequest, query: ListQuery<F, S, CursorPaginationSpec>): Promise<CursorPosition>;
  /**
   * A page of a cursor list within the document byte budget (docs/api/foundation.md, "Byte
   * budgets"); stores a cursor for `nextAfter` unless it is empty (the last page: no
   * `links.next`). `meta` (e.g. a total) goes into the document's `meta`. Undefined when a page of
   * more than one item would, with its includes, be over the budget: then ask for a smaller page
   * from the same position. A page of one item is always answered.
   */
  cursorPage<F extends FilterSpecs, S extends string>(
    request: ApiRequest,
    query: ListQuery<F, S, CursorPaginationSpec>,
    position: CursorPosition,
    data: readonly ResourceObject[],
    nextAfter: string,
    meta?: { readonly [key: string]: JsonValue },
  ): Promise<ApiResponse | undefined>;
  /** A page of a page-numbered list, with `total` items in the whole list (meta.total, links.last). */
  numberedPage<F extends FilterSpecs, S extends string>(
    request: ApiRequest,
    query: ListQuery<F, S, NumberedPaginationSpec>,
    data: readonly ResourceObject[],
    total: number,
  ): Promise<ApiResponse>;
  /** One resource (or null) with its includes and fieldsets; `links.self` of the document is the request URL unless `options.self` says otherwise. */
  resource(request: ApiRequest, query: DocumentQuery, data: ResourceObject | null, options?: ResourceResponseOptions): Promise<ApiResponse>;
}

/** Creates the responder of the gateway. */
export function createDocumentResponder({ cursors, loaders }: DocumentResponderDeps): DocumentResponder {
  async function compound(
    request: ApiRequest,
    query: DocumentQuery,
    data: readonly ResourceObject[],
    allowance = ByteAllowance.unlimited(),
  ): Promise<{ data: ResourceObject[]; included: ResourceObject[] }> {
    const included = await resolveIncludes(data, query, loaders, { caller: request.caller, fields: query.fields, allowance });
    const schemas = query.spec.schemas;
    const narrow = (resource: ResourceObject): ResourceObject => narrowResource(resource, schemas.get(resource.type), query.fields);
    return { data: data.map(narrow), included: included.map(narrow) };
  }

  return {
    async cursorStart(request, query) {
      const binding = cursorBinding(query, endpointOf(request), request.caller);
      const cursor = query.page.cursor;
      return { after: cursor === undefined ? '' : await cursors.load(cursor, binding), binding };
    },

    async cursorPage(request, query, position, data, nextAfter, meta) {
      // Primary data alone fits: its service cut the page to LIST_PAGE_MAX_BYTES (or it is one
      // item), a quarter of the document's budget. So only a page with includes is counted.
      let allowance = ByteAllowance.unlimited();
      if (query.include.size > 0) {
        allowance = new ByteAllowance(DOCUMENT_MAX_BYTES);
        allowance.spend(data);
      }
      const document = await compound(request, query, data, allowance);
      if (allowance.exhausted && data.length > 1) return undefined;
      const next = nextAfter === '' ? undefined : await cursors.save(position.binding, nextAfter);
      return { status: 200, document: collectionDocument(document.data, cursorLinks(request.selfLink, next), document.included, meta) };
    },

    async numberedPage(request, query, data, total) {
      const document = await compound(request, query, data);
      const { links, meta } = numberedPageLinks(request.selfLink, query.page, total);
      return { status: 200, document: collectionDocument(document.data, links, document.included, meta) };
    },

    async resource(request, query, data, options = {}) {
      const document = data === null ? { data: [], included: [] } : await compound(request, query, [data]);
      return {
        status: options.status ?? 200,
        document: resourceDocument(document.data[0] ?? null, options.self ?? request.selfLink, document.included),
        ...(options.headers === undefined ? {} : { headers: options.headers }),
      };
    },
  };
}

/** The path of the request (without the query): part of a cursor's binding. */
function endpointOf(request: ApiRequest): string {
  const url = request.selfLink;
  const queryStart = url.indexOf('?');
  return new URL(queryStart === -1 ? url : url.slice(0, queryStart)).pathname;
}

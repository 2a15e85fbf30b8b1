import { isAppError } from '@inkwell/errors';
import type { ApiLinks } from '../jsonapi/api-links.js';
import type { JsonValue, ResourceObject } from '../jsonapi/document.builder.js';
import {
  parseCreateBody,
  parseDocumentQuery,
  parseListQuery,
  parseUpdateBody,
  type CursorPaginationSpec,
  type DocumentQuery,
  type DocumentResponder,
  type DocumentSpec,
  type FilterSpecs,
  type ListQuery,
  type ListSpec,
  type NumberedPaginationSpec,
  type WriteBody,
  type WriteSpec,
} from '../jsonapi/index.js';
import type { AttributeWriteSpecs, RelationshipWriteSpecs } from '../jsonapi/write-body.parser.js';
import { routeAccess, type Rpc, type RpcOptions } from './route-rpc.js';
import type { ApiRequest, PathParams, RouteDefinition, RouteDoc } from './route.types.js';

/**
 * Route kinds: an endpoint is declared as a table entry (path, the specs it parses, the RPC it
 * calls and the mappers request → proto → resource) and one generic handler per kind runs it.
 * The route's scope and signed-in user come from the RPC's `(inkwell.api.v1.access)` option
 * (see `routeAccess`). Every kind produces a plain RouteDefinition, so the dispatcher, the API
 * document and idempotency see no difference. Routes that fit no kind use `defineRoute` with
 * their own handler.
 */

/** The path parameters of a route, by name (`me` already resolved). */
export type RouteParams<P extends string> = Readonly<Record<PathParams<P>, string>>;

/** The RPC options of a request: its caller and, when the client may go away, its signal. */
function rpcOptions(request: ApiRequest): RpcOptions {
  return request.signal === undefined ? { caller: request.caller } : { caller: request.caller, signal: request.signal };
}

/** What the cursor-list kind adds to every list request: the page size and where the page starts. */
export interface CursorPageRequest {
  readonly pageSize: number;
  readonly after: string;
}

/** What every cursor-list response carries: where the next page starts ('' on the last page). */
export interface CursorPageResponse {
  readonly nextAfter: string;
}

/**
 * What every kind declares besides its specs and mappers: the RouteDefinition without its method
 * (the kind's) and handler (the kind's), and a doc without `query`/`body` (the specs the kind
 * parses, put into the doc by the kind, so that what is documented is what is enforced).
 * `scope` and `requiresUser` come from the RPC (`rpcOf`); an entry states them only where the
 * RPC declares no such requirement and the edge needs one (say why beside it).
 */
export type RouteDeclaration<P extends string> = Omit<RouteDefinition<P>, 'method' | 'handler' | 'doc'> & {
  readonly doc: Omit<RouteDoc, 'query' | 'body'>;
};

/** A cursor list's parsed query. */
type CursorListQuery<F extends FilterSpecs, S extends string> = ListQuery<F, S, CursorPaginationSpec>;

/** GET of one resource: parse the document query, call, map the response (null: `data: null`; throw for 404). */
export type ReadRoute<P extends string, Q, R> = RouteDeclaration<P> & {
  readonly query: DocumentSpec;
  toRequest(input: { readonly params: RouteParams<P>; readonly query: DocumentQuery }): Q;
  readonly rpc: Rpc<Q, R>;
  toResource(response: R, links: ApiLinks): ResourceObject | null;
};

/**
 * GET of a cursor list (docs/api/lists.md, "Cursor pagination"): the one implementation of
 * cursorStart → RPC(pageSize, after) → cursorPage. `toRequest` gives everything but the page.
 */
export type ListRoute<P extends string, F extends FilterSpecs, S extends string, Q, R> = RouteDeclaration<P> & {
  readonly query: ListSpec<F, S, CursorPaginationSpec>;
  toRequest(input: { readonly params: RouteParams<P>; readonly query: CursorListQuery<F, S> }): Q;
  readonly rpc: Rpc<Q & CursorPageRequest, R & CursorPageResponse>;
  toResources(response: R, links: ApiLinks): readonly ResourceObject[];
  /** The document's `meta` (e.g. totals), when the list has one. */
  meta?(response: R, query: CursorListQuery<F, S>): { readonly [key: string]: JsonValue } | undefined;
};

/**
 * POST of a new resource: 201 with the resource (or null). When the resource has a `links.self`,
 * it is the `Location` header and, unless `self` is `'request'`, the document's `links.self`.
 */
export type CreateRoute<P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q, R> = RouteDeclaration<P> & {
  readonly query: DocumentSpec;
  readonly body: WriteSpec<A, B>;
  toRequest(input: { readonly params: RouteParams<P>; readonly query: DocumentQuery; readonly body: WriteBody<A, B> }): Q;
  readonly rpc: Rpc<Q, R>;
  /** The created resource; `params` for what the response leaves out because the path says it (the owner). */
  toResource(response: R, links: ApiLinks, params: RouteParams<P>): ResourceObject | null;
  /** The document's `links.self`: the new resource's (default) or the request's URL. */
  readonly self?: 'created' | 'request';
};

/**
 * PATCH of one resource: 200 with the changed resource. `data.id` must equal the path parameter
 * `idParam` (default `id`); when that parameter is of kind `user`, `data.id` may also be `me`.
 */
export type UpdateRoute<P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q, R> = RouteDeclaration<P> & {
  readonly query: DocumentSpec;
  readonly body: WriteSpec<A, B>;
  readonly idParam?: PathParams<P>;
  toRequest(input: { readonly params: RouteParams<P>; readonly query: DocumentQuery; readonly body: WriteBody<A, B> }): Q;
  readonly rpc: Rpc<Q, R>;
  toResource(response: R, links: ApiLinks): ResourceObject | null;
  /**
   * Runs when the body is refused, before the refusal is answered: lets the service refuse first
   * (404, 403) so that what a caller learns does not depend on the body.
   */
  beforeBodyRefusal?(params: RouteParams<P>, options: RpcOptions): Promise<unknown>;
};

/** A write answered 204 without a document: DELETE, or PUT with a body (parsed as a create). */
export type CommandRoute<P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q> = RouteDeclaration<P> & {
  readonly method: 'PUT' | 'DELETE';
  readonly body?: WriteSpec<A, B>;
  /** A document spec the query string is checked against although nothing is returned. */
  readonly checkedQuery?: DocumentSpec;
  toRequest(input: { readonly params: RouteParams<P>; readonly body: WriteBody<A, B> }): Q;
  readonly rpc: Rpc<Q, unknown>;
};

/** The route kinds, bound to the gateway's document responder and link builder. */
export interface RouteKinds {
  /** GET of one resource. */
  read<const P extends string, Q, R>(route: ReadRoute<P, Q, R>): RouteDefinition;
  /** GET of a cursor list. */
  list<const P extends string, F extends FilterSpecs, S extends string, Q, R>(route: ListRoute<P, F, S, Q, R>): RouteDefinition;
  /** POST creating one resource (201). */
  create<const P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q, R>(route: CreateRoute<P, A, B, Q, R>): RouteDefinition;
  /** PATCH of one resource (200). */
  update<const P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q, R>(route: UpdateRoute<P, A, B, Q, R>): RouteDefinition;
  /** DELETE, or PUT, answered 204. */
  command<const P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q>(route: CommandRoute<P, A, B, Q>): RouteDefinition;
}

/** What the kinds need: the responder every document goes through and the link builder the mappers get. */
export interface RouteKindsDeps {
  readonly documents: DocumentResponder;
  readonly links: ApiLinks;
}

/**
 * The route kinds of one route file. Nothing of `deps` is touched until a request arrives (the
 * API document builds the table with inert dependencies).
 */
export function routeKinds(deps: RouteKindsDeps): RouteKinds {
  return {
    read: (route) => readRoute(deps, route),
    list: (route) => listRoute(deps, route),
    create: (route) => createRoute(deps, route),
    update: (route) => updateRoute(deps, route),
    command: (route) => commandRoute(route),
  };
}

function readRoute<P extends string, Q, R>(deps: RouteKindsDeps, { query: spec, toRequest, rpc, toResource, doc, ...declaration }: ReadRoute<P, Q, R>): RouteDefinition {
  return definition<P>({ ...declaration, method: 'GET', doc: { ...doc, query: spec } }, rpc, async (request) => {
    const query = parseDocumentQuery(spec, request.query);
    const response = await rpc(toRequest({ params: request.params, query }), rpcOptions(request));
    return deps.documents.resource(request, query, toResource(response, deps.links));
  });
}

function listRoute<P extends string, F extends FilterSpecs, S extends string, Q, R>(
  deps: RouteKindsDeps,
  { query: spec, toRequest, rpc, toResources, meta, doc, ...declaration }: ListRoute<P, F, S, Q, R>,
): RouteDefinition {
  return definition<P>({ ...declaration, method: 'GET', doc: { ...doc, query: spec } }, rpc, async (request) => {
    const query = parseListQuery(spec, request.query);
    const position = await deps.documents.cursorStart(request, query);
    // A page whose document would be over its byte budget is asked for again with half as many
    // items from the same position, down to one (docs/api/foundation.md, "Byte budgets").
    for (let pageSize = query.page.size; ; ) {
      const response = await rpc({ ...toRequest({ params: request.params, query }), pageSize, after: position.after }, rpcOptions(request));
      const data = toResources(response, deps.links);
      const answer = await deps.documents.cursorPage(request, query, position, data, response.nextAfter, meta?.(response, query));
      if (answer !== undefined) return answer;
      pageSize = Math.max(1, Math.floor(data.length / 2));
    }
  });
}

function createRoute<P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q, R>(
  deps: RouteKindsDeps,
  { query: spec, body: bodySpec, toRequest, rpc, toResource, self = 'created', doc, ...declaration }: CreateRoute<P, A, B, Q, R>,
): RouteDefinition {
  return definition<P>({ ...declaration, method: 'POST', doc: { ...doc, query: spec, body: bodySpec } }, rpc, async (request) => {
    const query = parseDocumentQuery(spec, request.query);
    const body = parseCreateBody(bodySpec, request.body);
    const response = await rpc(toRequest({ params: request.params, query, body }), rpcOptions(request));
    const resource = toResource(response, deps.links, request.params);
    const location = resource?.links?.self;
    const created = location === undefined ? {} : { headers: { Location: location }, ...(self === 'created' ? { self: location } : {}) };
    return deps.documents.resource(request, query, resource, { status: 201, ...created });
  });
}

function updateRoute<P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q, R>(
  deps: RouteKindsDeps,
  { query: spec, body: bodySpec, idParam, toRequest, rpc, toResource, beforeBodyRefusal, doc, ...declaration }: UpdateRoute<P, A, B, Q, R>,
): RouteDefinition {
  const idName = idParam ?? ('id' as PathParams<P>);
  const acceptsMe = declaration.params?.[idName] === 'user';
  return definition<P>({ ...declaration, method: 'PATCH', doc: { ...doc, query: spec, body: bodySpec } }, rpc, async (request) => {
    const query = parseDocumentQuery(spec, request.query);
    const id = request.params[idName];
    const options = rpcOptions(request);
    let body: WriteBody<A, B>;
    try {
      body = parseUpdateBody(bodySpec, acceptsMe ? meAsId(request.body, id) : request.body, id);
    } catch (error) {
      if (isAppError(error) && beforeBodyRefusal !== undefined) await beforeBodyRefusal(request.params, options);
      throw error;
    }
    const response = await rpc(toRequest({ params: request.params, query, body }), options);
    return deps.documents.resource(request, query, toResource(response, deps.links));
  });
}

function commandRoute<P extends string, A extends AttributeWriteSpecs, B extends RelationshipWriteSpecs, Q>({
  method,
  body: bodySpec,
  checkedQuery,
  toRequest,
  rpc,
  doc,
  ...declaration
}: CommandRoute<P, A, B, Q>): RouteDefinition {
  return definition<P>({ ...declaration, method, doc: { ...doc, ...(bodySpec === undefined ? {} : { body: bodySpec }) } }, rpc, async (request) => {
    if (checkedQuery !== undefined) parseDocumentQuery(checkedQuery, request.query);
    const body: WriteBody<A, B> = bodySpec === undefined ? { attributes: {}, relationships: {} } : parseCreateBody(bodySpec, request.body);
    await rpc(toRequest({ params: request.params, body }), rpcOptions(request));
    return { status: 204 };
  });
}

/**
 * A kind's RouteDefinition: the declaration as given, the kind's method and doc, the access its
 * RPC declares (with what the entry adds, see `routeAccess`), and its handler.
 */
function definition<P extends string>(
  { scope, requiresUser, ...route }: Omit<RouteDefinition<P>, 'handler'>,
  rpc: Rpc<never, unknown>,
  handler: (request: ApiRequest<PathParams<P>>) => ReturnType<RouteDefinition['handler']>,
): RouteDefinition {
  return { ...route, ...routeAccess(rpc, { scope, requiresUser }), handler } as unknown as RouteDefinition;
}

/**
 * A PATCH of `/users/me` may name the resource `"me"` in `data.id` as well as by its numeric id;
 * either way it must be the user of the URL (already resolved to `id`).
 */
function meAsId(body: unknown, id: string): unknown {
  const data = (body as { data?: { id?: unknown } } | null | undefined)?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data) || data.id !== 'me') return body;
  return { ...(body as object), data: { ...data, id } };
}

/** The validated body of a write spec: `BodyOf<typeof STORY_WRITE>`. */
export type BodyOf<W> = W extends WriteSpec<infer A, infer B> ? WriteBody<A, B> : never;

/** The parsed query of a list spec: `ListQueryOf<typeof STORY_LIST>`. */
export type ListQueryOf<L> =
  L extends ListSpec<infer F, infer S, infer P> ? ListQuery<F, S, P extends CursorPaginationSpec ? CursorPaginationSpec : NumberedPaginationSpec> : never;

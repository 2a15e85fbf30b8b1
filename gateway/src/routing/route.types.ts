import type { Writable } from 'node:stream';
import type { Scope } from '@inkwell/auth-tokens';
import type { CallerContext } from '@inkwell/grpc';
import type { JsonApiDocument } from '../jsonapi/document.builder.js';
import type { ApiErrorCode } from '../jsonapi/error.mapping.js';
import type { DocumentSpec } from '../jsonapi/list-spec.js';
import type { AttributeType } from '../jsonapi/resource-schema.js';
import type { WriteSpec } from '../jsonapi/write-body.parser.js';

/** HTTP methods a route may declare. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What a path parameter accepts; anything else makes the path unknown (404, docs/api/foundation.md, "Transport and routing").
 * - `id`: a numeric storage id (a positive int64 without leading zeros).
 * - `user`: an `id`, or `me`, which the dispatcher replaces with the caller's user id before the
 *   handler runs (401 when the caller has no user).
 * - `client`: an OAuth client id (app id): 1–64 base64url characters (`CLIENT_ID_PATTERN`).
 */
export type ParamKind = 'id' | 'user' | 'client';

/** What a `client` path parameter accepts: the form of OAuth client ids (22 base64url characters; up to 64 for the operator's). */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The parameter names of a path template: `'/users/:id/following/:following_id'` → `'id' | 'following_id'`. */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** Read-only view of the query string; keys are kept raw (`filter[num_words]`). */
export type QueryParams = Pick<URLSearchParams, 'get' | 'getAll' | 'has' | 'keys' | 'entries' | 'forEach'> & { readonly size: number };

/** What a handler gets: one API request, already routed, authenticated and body-parsed. */
export interface ApiRequest<P extends string = string> {
  readonly method: HttpMethod;
  /** Path parameters by name, validated by their kind; `me` is already resolved to a user id. */
  readonly params: Readonly<Record<P, string>>;
  readonly query: QueryParams;
  /** The parsed JSON body; undefined when the request has none. */
  readonly body: unknown;
  /** The `Idempotency-Key` header as sent (POST only matters; docs/api/foundation.md, "Idempotent POSTs"). */
  readonly idempotencyKey?: string;
  /** Who is calling; pass it to every gRPC call as `{ caller }`. */
  readonly caller: CallerContext;
  /**
   * Aborts when the client goes away before it has its answer: pass it to gRPC calls (as
   * route kinds do) so a service stops the work, e.g. a queued render (docs/api/foundation.md, "Markdown").
   */
  readonly signal?: AbortSignal;
  /** The absolute URL of this request (PUBLIC_BASE_URL + path + query): the document's `links.self`. */
  readonly selfLink: string;
}

/** What a handler returns: a status and a document (none for 204), or a streamed body, plus extra headers. */
export interface ApiResponse {
  readonly status: number;
  readonly document?: JsonApiDocument;
  /** A body that is not a document, written as it is produced (a story download); `document` is then unset. */
  readonly stream?: StreamedBody;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A response body written while it is built (docs/api/stories.md, "Downloads"): its media type,
 * a strong ETag known before any byte (so that `If-None-Match` is answered `304` without building
 * it), and the writer. The writer writes to `out` with backpressure and stops when `signal` aborts
 * (the client left, or the route's deadline passed); it does not end `out`.
 */
export interface StreamedBody {
  readonly contentType: string;
  readonly etag: string;
  write(out: Writable, signal: AbortSignal): Promise<void>;
}

/**
 * One endpoint: method, path relative to `/api/v1` with `:name` parameters, the kind of each
 * parameter (default `id`), and the handler. Handlers throw AppError for expected failures; the
 * dispatcher maps them with the one error table.
 */
export interface RouteDefinition<P extends string = string> {
  readonly method: HttpMethod;
  readonly path: P;
  readonly params?: { readonly [K in PathParams<P>]?: ParamKind };
  /**
   * The scope the token must hold, checked before the handler runs (403 `insufficient_scope`).
   * Route kinds take it from the RPC's `(inkwell.api.v1.access)` option (`routeAccess`), as does
   * `requiresUser`. Scopes that depend on the data (your own drafts need read_stories) are the
   * service's call: it throws `AppError.insufficientScope(scope)`.
   */
  readonly scope?: Scope;
  /**
   * The request acts as a user (writes, mailboxes, `me`): an app-only token gets 403 `forbidden`,
   * no user at all 401.
   */
  readonly requiresUser?: boolean;
  /**
   * Only the user themself may call it (the RPC's `first_party` access option): a personal token,
   * never an OAuth app's token, which gets 403 `forbidden` whatever its scopes, before the scope
   * is checked.
   */
  readonly firstParty?: boolean;
  /** How the route appears in the API document (GET /api/v1/openapi.json); every route of the table needs it. */
  readonly doc?: RouteDoc;
  handler(request: ApiRequest<PathParams<P>>): Promise<ApiResponse>;
}

/**
 * What the OpenAPI document (gateway/src/openapi) says about a route beyond its method, path,
 * parameters and scope: the specs its handler parses (so that query parameters, bodies and the
 * response type come from the same objects that enforce them), a summary and what else it may answer.
 */
export interface RouteDoc {
  /** One line: what the endpoint does. */
  readonly summary: string;
  /** Further rules a client can observe (Markdown). */
  readonly description?: string;
  /**
   * The list or document spec the handler parses the query with: its filters, sorts, pages,
   * `include` and `fields`, and the type of the response's primary data (a list spec → a
   * collection). Leave out when the route takes no query parameters.
   */
  readonly query?: DocumentSpec;
  /** The write spec of the request body (see `bodyCreates`). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each spec's attribute names are its own; the document reads them generically
  readonly body?: WriteSpec<any, any>;
  /** Whether PUT/POST bodies are parsed as a create (no `data.id`) rather than an update; default: POST and PUT create. */
  readonly bodyCreates?: boolean;
  /** The success status: 200 (default for GET and PATCH), 201 (default for POST) or 204 (no body; default for DELETE and PUT). */
  readonly status?: 200 | 201 | 204;
  /** The primary data of a 201/200 may be `null` (e.g. a follow that already existed). */
  readonly nullableData?: boolean;
  /** Error codes the route answers beyond those that follow from its declaration (path parameters, scope, query, body). */
  readonly errors?: readonly ApiErrorCode[];
  /**
   * The success answer is a document of only `meta` (these members, all present) and `links.self`,
   * without primary data: an action on many resources that reports counts. Leave `query` out then.
   */
  readonly meta?: Readonly<Record<string, AttributeType>>;
  /** The success answer is a file of this media type (a story download), not a document. Leave `query` out then. */
  readonly download?: { readonly mediaType: string };
}

/**
 * Declares a route with its parameter names inferred from the path, so that `params.id` is
 * checked by tsc and a `params` kind for a name the path lacks is rejected.
 */
export function defineRoute<const P extends string>(route: RouteDefinition<P>): RouteDefinition {
  return route as unknown as RouteDefinition;
}

/** A 200 (or `status`) response with a document. */
export function ok(document: JsonApiDocument, status = 200): ApiResponse {
  return { status, document };
}

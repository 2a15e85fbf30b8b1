import { ErrorCode, isAppError, type AppError, type ErrorDetail } from '@inkwell/errors';
import type { ErrorDocument, ErrorObject } from './document.builder.js';
import { errorAboutPath } from './error-links.js';

/** A public API error code with its HTTP status and the title sent with it (docs/api/foundation.md, "Errors"). */
interface ApiErrorKind {
  readonly status: number;
  readonly title: string;
  /** What it means and what to do: the text of its page, `/docs/errors/<code>`. */
  readonly about: string;
}

/**
 * Every public API error code (docs/api/foundation.md, "Errors") and its HTTP status. A `details[].reason` of an
 * AppError that names one of these decides the status of that error entry.
 */
export const API_ERROR_CODES = {
  invalid_token: { status: 401, title: 'Invalid or missing token', about: 'The request has no token, or its token is malformed, unknown, expired or revoked, or the request needs a user token (`me`). Get a new access token (or refresh it) and send it as `Authorization: Bearer <token>`.' },
  insufficient_scope: { status: 403, title: 'Insufficient scope', about: 'The token lacks the scope this request needs (the `WWW-Authenticate` header names it). Ask the user to authorise your app for that scope.' },
  forbidden: { status: 403, title: 'Forbidden', about: 'You may see the resource but not do this: you are not its author, owner or the user in the path, an app-only token tried to act as a user, or a create sent its own `data.id`.' },
  site_post_immutable: { status: 403, title: 'Site posts cannot be changed', about: 'Site blog posts are written by the operators; they cannot be changed or deleted through the API.' },
  not_found: { status: 404, title: 'Not found', about: 'There is no such resource, or it is not yours to know about (another user\'s draft, private shelf or message). A malformed id in the path is also 404.' },
  method_not_allowed: { status: 405, title: 'Method not allowed', about: 'The path exists, but not with this method. The `Allow` header lists the methods it takes.' },
  conflict: { status: 409, title: 'Conflict', about: 'The request collides with the current state: a duplicate (the story is already on the shelf, you already follow the user), a `data.type` that is not this endpoint\'s, a `data.id` that is not the path\'s, or a concurrent change.' },
  payload_too_large: { status: 413, title: 'Payload too large', about: 'Request bodies are limited to 2 MiB.' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', about: 'Send bodies as `application/vnd.api+json` (no media type parameters but `profile`) or `application/json` (UTF-8).' },
  invalid_parameter: { status: 400, title: 'Invalid parameter', about: 'A query parameter (or a request header, see `source`) is malformed, unknown or sent twice: a filter value, a page size or number, an `Idempotency-Key`. `source.parameter` or `source.header` names it.' },
  too_many_sort_fields: { status: 400, title: 'Too many sort fields', about: 'Lists sort by one field only: send `sort=field` or `sort=-field`.' },
  invalid_sort: { status: 400, title: 'Invalid sort', about: 'The sort field is not one this list offers (the detail lists them), `relevance` was asked without a `query`, or `date_added` without `filter[bookshelf]`.' },
  invalid_include: { status: 400, title: 'Invalid include', about: 'The `include` path is not one this endpoint offers (the detail lists them).' },
  invalid_fields: { status: 400, title: 'Invalid fields', about: '`fields[type]` names a field the type lacks, or a type this endpoint never returns.' },
  invalid_cursor: { status: 400, title: 'Invalid cursor', about: 'The `page[cursor]` is unknown, expired (cursors live at least an hour), or was made for another query or caller. Start again from `links.first`.' },
  invalid_filter_combination: { status: 400, title: 'Invalid filter combination', about: 'Private-message lists need `filter[sent]` or `filter[received]` (or both) to be true.' },
  unread_requires_owned_bookshelf: { status: 400, title: 'filter[unread] needs an owned bookshelf', about: '`filter[unread]` works only together with a `filter[bookshelf]` naming a shelf you own.' },
  invalid_body: { status: 400, title: 'Invalid body', about: 'The body is not JSON, or not a JSON:API document with a single resource object, or a member of it has the wrong structure (e.g. a relationship that is not `{ "data": ... }`).' },
  validation_failed: { status: 422, title: 'Validation failed', about: 'An attribute or relationship fails the rules (missing, wrong type, too long, read-only, a NUL character, a publishing rule). `source.pointer` names each one; several may be reported at once.' },
  rate_limited: { status: 429, title: 'Too many requests', about: 'You are over one of your budgets: requests in the current rate-limit window (the `RateLimit-*` headers show it on every response), texts of yours waiting to be rendered, or new `Idempotency-Key` values in 24 hours. Wait for `Retry-After` seconds.' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused with another request', about: 'The `Idempotency-Key` was used (by you, within 24 hours) for a request with another method, path or body. Use a new key for a new request.' },
  idempotency_key_in_use: { status: 409, title: 'A request with this idempotency key is still running', about: 'A request with this `Idempotency-Key` is still running. Retry once it has answered: you then get its answer.' },
  internal: { status: 500, title: 'Internal error', about: 'Something failed on our side. It is logged with the request id (`X-Request-Id`); retrying may help.' },
  unavailable: { status: 503, title: 'Service unavailable', about: 'A backing service is unavailable. Retry later.' },
} as const satisfies Record<string, ApiErrorKind>;

/** A stable public error code (docs/api/foundation.md, "Errors"). */
export type ApiErrorCode = keyof typeof API_ERROR_CODES;

/**
 * THE table from AppError codes (which mirror gRPC status codes) to the public error code used
 * when no detail names a more precise one. The HTTP status follows from the public code.
 * Beyond the obvious rows: ABORTED (a concurrent change) is a 409 and OUT_OF_RANGE a 400 as in
 * google.rpc's HTTP mapping; CANCELLED, UNIMPLEMENTED and INTERNAL are our failures (500).
 */
export const ERROR_CODE_TABLE: { readonly [C in ErrorCode]: ApiErrorCode } = {
  [ErrorCode.INVALID_ARGUMENT]: 'invalid_parameter',
  [ErrorCode.NOT_FOUND]: 'not_found',
  [ErrorCode.ALREADY_EXISTS]: 'conflict',
  [ErrorCode.PERMISSION_DENIED]: 'forbidden',
  [ErrorCode.UNAUTHENTICATED]: 'invalid_token',
  [ErrorCode.FAILED_PRECONDITION]: 'validation_failed',
  [ErrorCode.ABORTED]: 'conflict',
  [ErrorCode.OUT_OF_RANGE]: 'invalid_parameter',
  [ErrorCode.RESOURCE_EXHAUSTED]: 'rate_limited',
  [ErrorCode.UNIMPLEMENTED]: 'internal',
  [ErrorCode.UNAVAILABLE]: 'unavailable',
  [ErrorCode.DEADLINE_EXCEEDED]: 'unavailable',
  [ErrorCode.CANCELLED]: 'internal',
  [ErrorCode.INTERNAL]: 'internal',
};

const SERVER_DETAIL: { readonly internal: string; readonly unavailable: string } = {
  internal: 'An unexpected error occurred. It has been logged with the request id.',
  unavailable: 'A backing service is unavailable. Please try again later.',
};

/** How an error is answered: the HTTP status, the document, and whether it must be logged. */
export interface ErrorResponse {
  readonly status: number;
  readonly document: ErrorDocument;
  /**
   * `error`: a failure of ours (unknown error, INTERNAL, ...); `warn`: a backend was unavailable;
   * `info`: a state the system expects, e.g. a backend already known to be down (AppError.expected:
   * one line, no stack, whatever its code); undefined: a client error.
   */
  readonly log: 'error' | 'warn' | 'info' | undefined;
}

/**
 * Maps any thrown value to the response the client gets (docs/api/foundation.md, "Errors").
 * - An AppError of a client-error class (4xx) becomes one error entry per detail (or one from
 *   its message when it has none), at most MAX_LISTED_ERRORS and one entry counting the rest. A detail's `reason` that is a public code overrides the code
 *   and status of its entry; `pointer`/`parameter` become `source`. Its message is client-safe
 *   by definition of AppError and becomes `detail` when the detail has none.
 * - A 5xx class (UNAVAILABLE, DEADLINE_EXCEEDED → 503 `unavailable`; INTERNAL and the rest →
 *   500 `internal`) and anything that is not an AppError gets a fixed text: neither messages
 *   nor details of server failures are ever sent.
 * The HTTP status is the entries' status when they agree, else 400 (JSON:API's rule for mixed
 * client errors).
 */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (!isAppError(error)) return serverError('internal');
  const fallback = ERROR_CODE_TABLE[error.code] ?? 'internal';
  const fallbackStatus = API_ERROR_CODES[fallback].status;
  if (fallbackStatus >= 500) return serverError(fallback as 'internal' | 'unavailable', error.expected);

  const entries = error.details.length === 0 ? [entry(fallback, error.message, undefined)] : error.details.map((detail) => entryOf(detail, fallback, error));
  return { status: overallStatus(entries), document: { errors: capped(entries) }, log: undefined };
}

/** Most errors one document lists (docs/api/foundation.md, "Errors"); the rest are summed up in one more entry. */
export const MAX_LISTED_ERRORS = 20;

/**
 * The first {@link MAX_LISTED_ERRORS} entries, then one entry (the code of the first left out,
 * no `source`) saying how many more there are: an error answer never grows with the request.
 */
function capped(entries: readonly ErrorObject[]): ErrorObject[] {
  if (entries.length <= MAX_LISTED_ERRORS) return [...entries];
  const more = entries.length - MAX_LISTED_ERRORS;
  const next = entries[MAX_LISTED_ERRORS]!;
  const summary = entry(next.code as ApiErrorCode, `${more} more ${more === 1 ? 'error is' : 'errors are'} not listed: an error answer lists at most ${MAX_LISTED_ERRORS}.`, undefined);
  return [...entries.slice(0, MAX_LISTED_ERRORS), summary];
}

/** A one-entry error document with a public code, e.g. for a 404 of the router itself. */
export function errorDocument(code: ApiErrorCode, detail: string, source?: ErrorObject['source']): ErrorDocument {
  return { errors: [entry(code, detail, source)] };
}

function serverError(code: 'internal' | 'unavailable', expected = false): ErrorResponse {
  return {
    status: API_ERROR_CODES[code].status,
    document: errorDocument(code, SERVER_DETAIL[code]),
    log: expected ? 'info' : code === 'internal' ? 'error' : 'warn',
  };
}

function entryOf(detail: ErrorDetail, fallback: ApiErrorCode, error: AppError): ErrorObject {
  const reason = detail.reason;
  const code = reason !== undefined && isClientErrorCode(reason) ? reason : fallback;
  const source = detail.pointer !== undefined ? { pointer: detail.pointer } : detail.parameter !== undefined ? { parameter: detail.parameter } : detail.header !== undefined ? { header: detail.header } : undefined;
  return entry(code, detail.detail ?? error.message, source);
}

function isClientErrorCode(reason: string): reason is ApiErrorCode {
  return Object.hasOwn(API_ERROR_CODES, reason) && API_ERROR_CODES[reason as ApiErrorCode].status < 500;
}

function entry(code: ApiErrorCode, detail: string, source: ErrorObject['source']): ErrorObject {
  const kind = API_ERROR_CODES[code];
  const base = { status: String(kind.status), code, title: kind.title, detail };
  const links = { about: errorAboutPath(code) };
  return source === undefined ? { ...base, links } : { ...base, source, links };
}

function overallStatus(entries: readonly ErrorObject[]): number {
  const first = entries[0]?.status ?? '500';
  return entries.every((e) => e.status === first) ? Number(first) : 400;
}

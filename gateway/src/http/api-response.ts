import type { ServerResponse } from 'node:http';
import { isAppError } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { JSON_API_MEDIA_TYPE, type JsonApiDocument } from '../jsonapi/document.builder.js';
import { toErrorResponse } from '../jsonapi/error.mapping.js';
import type { GatewayRequest } from './request-state.js';

/** The realm of every Bearer challenge (docs/api/auth.md, "The token check on API requests"). */
export const BEARER_REALM = 'Bearer realm="inkwell"';

/**
 * `Retry-After` of every `503 unavailable` (seconds): the gateway checks its backends every
 * second and reconnects within 5 s of a backend's return (docs/api/foundation.md, "Readiness and
 * backend outages").
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Writes a JSON:API response: status, `Content-Type: application/vnd.api+json`, extra headers,
 * and the document (no body when `document` is undefined, e.g. 204). Does nothing when the
 * response is already sent or the client is gone.
 */
export function sendJsonApi(res: ServerResponse, status: number, document: JsonApiDocument | undefined, headers?: Readonly<Record<string, string>>): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = status;
  if (headers !== undefined) {
    for (const name in headers) res.setHeader(name, headers[name] as string);
  }
  if (document === undefined) {
    res.end();
    return;
  }
  const body = JSON.stringify(document);
  res.setHeader('Content-Type', JSON_API_MEDIA_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/**
 * Answers `error` as a JSON:API error document through the one error table (toErrorResponse).
 * Server failures are logged with the request id (never sent); a refusal for a backend already
 * known to be down (AppError.expected) at info, one line without a stack. A 401 carries the Bearer
 * challenge: with `error="invalid_token"` when the request presented an Authorization header
 * of any kind (docs/api/auth.md, "The token check on API requests"), without it when there were no credentials at all (RFC 6750 §3.1).
 * A 403 whose error has a detail with reason `insufficient_scope` (the dispatcher's route scope
 * check, or a service's data-dependent one) carries
 * `Bearer realm="inkwell", error="insufficient_scope", scope="<needed>"` (docs/api/auth.md, "The token check on API requests").
 * A 503 (a backend or store unavailable) carries `Retry-After` ({@link UNAVAILABLE_RETRY_AFTER_SECONDS}).
 * A 429 whose error has a detail with `retryAfterSeconds` (a service's own refusal, e.g. a caller
 * with too many texts waiting to be rendered: docs/api/foundation.md, "Markdown") carries it as
 * `Retry-After`.
 * When the request body was not read to its end, the connection is closed after the answer so
 * that the unread bytes are not taken for the next request.
 */
export function sendApiError(req: GatewayRequest, res: ServerResponse, error: unknown, logger: Logger, headers?: Readonly<Record<string, string>>): void {
  const response = toErrorResponse(error);
  if (response.log !== undefined) {
    const context = { requestId: req.inkwell?.requestId, route: req.inkwell?.route };
    // An expected state (a backend already known to be down) is one line without a stack.
    const cause = response.log === 'info' ? { error: error instanceof Error ? error.message : String(error) } : { err: error };
    logger[response.log]({ ...cause, ...context }, 'request failed');
  }
  if (res.headersSent || res.destroyed) return;
  if (response.status === 401) {
    res.setHeader('WWW-Authenticate', req.headers.authorization === undefined ? BEARER_REALM : `${BEARER_REALM}, error="invalid_token"`);
  } else if (response.status === 403) {
    const challenge = insufficientScopeChallenge(error);
    if (challenge !== undefined) res.setHeader('WWW-Authenticate', challenge);
  } else if (response.status === 503) {
    res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  } else if (response.status === 429) {
    const seconds = isAppError(error) ? error.details.find((detail) => detail.retryAfterSeconds !== undefined)?.retryAfterSeconds : undefined;
    if (seconds !== undefined) res.setHeader('Retry-After', String(seconds));
  }
  if (!req.complete) res.setHeader('Connection', 'close');
  sendJsonApi(res, response.status, response.document, headers);
}

/** RFC 6750 §3 scope: space-separated tokens of printable ASCII without `"` and `\`. */
const SCOPE_VALUE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/**
 * The Bearer challenge of an insufficient-scope error: `error="insufficient_scope"` and, when
 * the detail names one (and it is a well-formed scope value), `scope="<needed>"`. Undefined when
 * no detail of `error` has reason `insufficient_scope`.
 */
export function insufficientScopeChallenge(error: unknown): string | undefined {
  if (!isAppError(error)) return undefined;
  const detail = error.details.find((candidate) => candidate.reason === 'insufficient_scope');
  if (detail === undefined) return undefined;
  const scope = detail.scope;
  return scope !== undefined && SCOPE_VALUE.test(scope) ? `${BEARER_REALM}, error="insufficient_scope", scope="${scope}"` : `${BEARER_REALM}, error="insufficient_scope"`;
}

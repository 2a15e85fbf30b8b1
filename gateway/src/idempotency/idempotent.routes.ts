import { createHash } from 'node:crypto';
import { AppError, ErrorCode } from '@inkwell/errors';
import type { CallerContext } from '@inkwell/grpc';
import { insufficientScopeChallenge } from '../http/api-response.js';
import { toErrorResponse } from '../jsonapi/error.mapping.js';
import { cursorOwner } from '../jsonapi/cursor-binding.js';
import type { JsonApiDocument } from '../jsonapi/document.builder.js';
import type { ApiRequest, ApiResponse, RouteDefinition } from '../routing/route.types.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_MAX_KEYS_PER_CALLER, IDEMPOTENCY_REPLAY_HEADER, MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency.rules.js';
import type { IdempotencyStore, OmittedBody, StoredAnswer } from './idempotency.store.js';

const KEY = /^[\x21-\x7E]+$/;

/**
 * Makes every POST route of `routes` honour `Idempotency-Key` (docs/api/foundation.md
 * "Idempotent POSTs"); other routes are returned unchanged. Without the header a POST runs as
 * before. With it, keyed by the caller (the user and the app, or the app for app-only tokens) and the key:
 * - a key that is empty, longer than 255 characters or not printable ASCII is 400
 *   `invalid_parameter` with `source.header`;
 * - a caller's 1,001st new key within 24 hours is 429 `rate_limited` with `Retry-After`;
 * - the first request runs and its answer — success or 4xx error: status, route headers
 *   (`Location`) and body, or for a body over 16 KiB its digest and resource identifier — is kept
 *   for 24 hours; a 5xx (or a failure to answer) is not kept, so a retry runs again;
 * - the same key again with the same method, path, query and body (compared as canonical JSON)
 *   gets the kept answer with `Idempotent-Replayed: true`; with anything else 422
 *   `idempotency_key_reused`; while the first still runs 409 `idempotency_key_in_use`.
 */
export function withIdempotency(routes: readonly RouteDefinition[], store: IdempotencyStore): RouteDefinition[] {
  return routes.map((route) => (route.method === 'POST' ? { ...route, handler: idempotentHandler(route, store) } : route));
}

function idempotentHandler(route: RouteDefinition, store: IdempotencyStore): RouteDefinition['handler'] {
  return async (request) => {
    const key = request.idempotencyKey;
    if (key === undefined) return route.handler(request);
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !KEY.test(key)) {
      const detail = `${IDEMPOTENCY_HEADER} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters.`;
      throw new AppError(ErrorCode.INVALID_ARGUMENT, detail, { details: [{ reason: 'invalid_parameter', header: IDEMPOTENCY_HEADER, detail }] });
    }
    const owner = sha256(idempotencyOwner(request.caller));
    const storeKey = store.key(owner, sha256(key));
    const fingerprint = fingerprintOf(route, request);
    const claim = await store.claim(owner, storeKey, fingerprint);
    if (claim.kind === 'over_budget') {
      const detail = `You have used ${IDEMPOTENCY_MAX_KEYS_PER_CALLER} ${IDEMPOTENCY_HEADER} values in 24 hours, the most: retry in ${claim.retryAfterSeconds} s, or send the request without the header.`;
      throw new AppError(ErrorCode.RESOURCE_EXHAUSTED, detail, { details: [{ reason: 'rate_limited', header: IDEMPOTENCY_HEADER, detail, retryAfterSeconds: claim.retryAfterSeconds }] });
    }
    if (claim.kind === 'existing') {
      const existing = claim.record;
      if (existing.fingerprint !== fingerprint) throw keyError('idempotency_key_reused', ErrorCode.FAILED_PRECONDITION, `This ${IDEMPOTENCY_HEADER} was used for another request (method, path, query or body). Use a new key for a new request.`);
      if (existing.state === 'running') throw keyError('idempotency_key_in_use', ErrorCode.ABORTED, `A request with this ${IDEMPOTENCY_HEADER} is still running; retry once it has answered.`);
      return replay(existing.answer);
    }
    let answer: StoredAnswer | undefined;
    try {
      const response = await route.handler(request);
      answer = { status: response.status, headers: { ...response.headers }, ...(response.document === undefined ? {} : { document: response.document }) };
      return response;
    } catch (error) {
      const response = toErrorResponse(error);
      if (response.status < 500) {
        const challenge = insufficientScopeChallenge(error);
        answer = { status: response.status, headers: challenge === undefined ? {} : { 'WWW-Authenticate': challenge }, document: response.document };
      }
      throw error;
    } finally {
      // Keeping or dropping the key must not change the answer the client gets now.
      await (answer === undefined ? store.abandon(storeKey) : store.finish(storeKey, fingerprint, answer)).catch(() => undefined);
    }
  };
}

function replay(answer: StoredAnswer): ApiResponse {
  const document = answer.omitted === undefined ? (answer.document as JsonApiDocument | undefined) : omittedDocument(answer.omitted, answer.headers['Location']);
  return {
    status: answer.status,
    headers: { ...answer.headers, [IDEMPOTENCY_REPLAY_HEADER]: 'true' },
    ...(document === undefined ? {} : { document }),
  };
}

/**
 * The replay of an answer whose body was too large to keep (docs/api/foundation.md, "Idempotent
 * POSTs"): the primary resource's identifier and its link, and the first body's digest.
 */
function omittedDocument(omitted: OmittedBody, location: string | undefined): JsonApiDocument {
  const meta = { body_omitted: true, body_sha256: omitted.sha256 };
  if (omitted.identifier === undefined) return { meta } as unknown as JsonApiDocument;
  return { data: { ...omitted.identifier }, ...(location === undefined ? {} : { links: { self: location } }), meta } as unknown as JsonApiDocument;
}

/** Whose keys these are: the user with the app (personal tokens have none), or the app alone for app-only tokens. */
function idempotencyOwner(caller: CallerContext): string {
  return `${cursorOwner(caller)}|app:${caller.appId ?? ''}`;
}

function keyError(reason: 'idempotency_key_reused' | 'idempotency_key_in_use', code: ErrorCode, detail: string): AppError {
  return new AppError(code, detail, { details: [{ reason, header: IDEMPOTENCY_HEADER, detail }] });
}

/** What makes two requests "the same": method, route, path parameters, query and the body as canonical JSON. */
function fingerprintOf(route: RouteDefinition, request: ApiRequest): string {
  const query = [...request.query.entries()].map(([name, value]) => `${name}=${value}`).join('&');
  return sha256(JSON.stringify([route.method, route.path, request.params, query, canonical(request.body)]));
}

/** JSON with object keys sorted, so that member order does not make two bodies differ. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.keys(value).sort().map((name) => [name, canonical((value as Record<string, unknown>)[name])]));
  }
  return value;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

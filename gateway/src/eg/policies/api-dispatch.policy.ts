import type { ServerResponse } from 'node:http';
import { AppError, ErrorCode } from '@inkwell/errors';
import type { CallerContext } from '@inkwell/grpc';
import type { Logger } from '@inkwell/logging';
import { etagMatches, sendValidatedJsonApi } from '../../cache/etag.js';
import { sendApiError, sendJsonApi } from '../../http/api-response.js';
import { readJsonBody } from '../../http/json-body.reader.js';
import { requestState, type GatewayRequest } from '../../http/request-state.js';
import type { ApiLinks } from '../../jsonapi/api-links.js';
import { errorDocument } from '../../jsonapi/error.mapping.js';
import { isMe, type CompiledRoute, type RouteTable } from '../../routing/route-table.js';
import type { ApiRequest, ApiResponse, HttpMethod, QueryParams } from '../../routing/route.types.js';
import type { EgPolicy } from '../eg.types.js';

/** Dependencies of the api-dispatch policy. */
export interface ApiDispatchDeps {
  readonly table: RouteTable;
  readonly links: ApiLinks;
  readonly logger: Logger;
  /** Largest accepted request body in bytes. */
  readonly maxBodyBytes: number;
}

const EMPTY_QUERY: QueryParams = new URLSearchParams();
const NOT_FOUND_DETAIL = 'There is no such resource.';

/**
 * The last policy of the API pipeline: routes the request through the route table and answers
 * it. Unknown path (or a parameter that does not fit, e.g. `/users/abc`): 404 `not_found`.
 * Known path, other method: 405 `method_not_allowed` with `Allow`. Otherwise it resolves `me`
 * (401 invalid_token without a user behind the token, also for app-only tokens on routes that
 * act as a user), checks the route's static scope, reads the body of POST/PUT/PATCH/DELETE requests
 * (415/413/400, see readJsonBody), calls the handler and sends its document; whatever the
 * handler throws goes through the one error table. It never calls `next`.
 */
export function createApiDispatchPolicy(deps: ApiDispatchDeps): EgPolicy {
  return {
    name: 'api-dispatch',
    schema: { $id: 'https://inkwell.dev/schemas/policies/api-dispatch.json', type: 'object', properties: {} },
    policy: () => (req, res) => {
      dispatch(req, res, deps).catch((error: unknown) => sendApiError(req, res, error, deps.logger));
    },
  };
}

async function dispatch(req: GatewayRequest, res: ServerResponse, deps: ApiDispatchDeps): Promise<void> {
  const state = requestState(req);
  const url = req.originalUrl ?? req.url ?? '/';
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const method = req.method ?? 'GET';

  const match = deps.table.match(method, path);
  if (match.kind === 'not_found') {
    sendJsonApi(res, 404, errorDocument('not_found', NOT_FOUND_DETAIL));
    return;
  }
  if (match.kind === 'method_not_allowed') {
    state.route = match.pattern;
    sendJsonApi(res, 405, errorDocument('method_not_allowed', `${method} is not allowed here; use ${match.allow}.`), { Allow: match.allow });
    return;
  }

  const route = match.route;
  state.route = route.pattern;
  const caller = state.caller;
  // `me` first: an app-only token on any `me` path is 401 invalid_token (there is no user behind
  // it, docs/api/auth.md, "The token check"), before the route's "acts as a user" 403.
  const params = resolveParams(route, match.values, caller);
  authorize(route, caller);
  const body = method === 'GET' ? undefined : await readJsonBody(req, deps.maxBodyBytes);
  // A client gone before its answer cancels the backend calls made for it (queued renders included).
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const request: ApiRequest = {
    method: method as HttpMethod,
    params,
    query: queryStart === -1 || queryStart === url.length - 1 ? EMPTY_QUERY : new URLSearchParams(url.slice(queryStart + 1)),
    body,
    ...(typeof req.headers['idempotency-key'] === 'string' ? { idempotencyKey: req.headers['idempotency-key'] } : {}),
    caller,
    signal: gone.signal,
    selfLink: deps.links.request(url),
  };
  const response = await route.definition.handler(request);
  if (response.stream !== undefined) return sendStreamed(req, res, response, gone.signal, deps.logger);
  // Every 200 to a GET carries a strong ETag and honours If-None-Match (docs/api/foundation.md, "Caching at the edge").
  if (method === 'GET' && response.status === 200 && response.document !== undefined) sendValidatedJsonApi(req, res, response.document, response.headers);
  else sendJsonApi(res, response.status, response.document, response.headers);
}

function resolveParams(route: CompiledRoute, values: readonly string[], caller: CallerContext): Record<string, string> {
  const params: Record<string, string> = {};
  const names = route.paramNames;
  for (let i = 0; i < names.length; i++) {
    let value = values[i] as string;
    if (route.paramKinds[i] === 'user' && isMe(value)) {
      if (caller.userId === undefined) throw signedInUserRequired();
      value = caller.userId;
    }
    params[names[i] as string] = value;
  }
  return params;
}

/** The static part of docs/api/auth.md, "The token check on API requests": a user behind the token, and the route's scope. */
function authorize(route: CompiledRoute, caller: CallerContext): void {
  const { scope, requiresUser, firstParty } = route.definition;
  if (requiresUser && caller.userId === undefined) {
    if (caller.appId === undefined) throw signedInUserRequired();
    throw AppError.forbidden('This request acts as a user; an app-only token cannot make it.');
  }
  if (firstParty && caller.appId !== undefined) throw AppError.forbidden('Only you can do this, with a personal access token or on your signed-in pages: an app cannot, whatever its scopes.');
  if (scope !== undefined && !caller.scopes.includes(scope)) throw AppError.insufficientScope(scope);
}

function signedInUserRequired(): AppError {
  const message = '`me` stands for the signed-in user: this request needs a user access token.';
  return new AppError(ErrorCode.UNAUTHENTICATED, message, { details: [{ reason: 'invalid_token', detail: message }] });
}

/**
 * Sends a streamed body (docs/api/stories.md, "Downloads"): the handler's headers and the body's
 * `ETag`; `304` without building it when `If-None-Match` names that ETag; otherwise `200` with its
 * `Content-Type`, written chunk by chunk (chunked transfer). A failure before the first byte is
 * an ordinary error answer; after it, the connection is cut (the client sees an incomplete
 * transfer, never a truncated file that looks whole), logged unless the client left.
 */
async function sendStreamed(req: GatewayRequest, res: ServerResponse, response: ApiResponse, signal: AbortSignal, logger: Logger): Promise<void> {
  const stream = response.stream as NonNullable<ApiResponse['stream']>;
  if (res.headersSent || res.destroyed) return;
  for (const name in response.headers) res.setHeader(name, response.headers[name] as string);
  res.setHeader('ETag', stream.etag);
  if (etagMatches(req.headers['if-none-match'], stream.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.statusCode = response.status;
  res.setHeader('Content-Type', stream.contentType);
  try {
    await stream.write(res, signal);
  } catch (error) {
    if (!res.headersSent) {
      // Nothing sent yet: the error is answered as any other, without the file's headers.
      for (const name of ['ETag', 'Content-Type', ...Object.keys(response.headers ?? {})]) res.removeHeader(name);
      throw error;
    }
    if (!signal.aborted) logger.warn({ err: error, requestId: req.inkwell?.requestId, route: req.inkwell?.route }, 'streamed answer cut short');
    res.destroy();
    return;
  }
  res.end();
}

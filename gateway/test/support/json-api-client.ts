import { readFileSync } from 'node:fs';
import { createInkwellClient, OPENAPI_DOCUMENT_URL, type InkwellClient, type Middleware } from '@inkwell/client';
import { expect } from 'vitest';
import { eventuallyValue } from '@inkwell/testing';

/** A resource object as the API sends it. */
export interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { type: string; id: string } | { type: string; id: string }[] | null }>;
  links?: { self: string };
}

/** A JSON:API top-level document (data, errors or neither). */
export interface Body {
  data?: Resource & Resource[];
  included?: Resource[];
  links?: { self: string; first?: string; next?: string; prev?: string };
  meta?: Record<string, unknown>;
  errors?: { status: string; code: string; detail: string; source?: { pointer?: string; parameter?: string; header?: string }; links?: { about: string } }[];
}

/** What one API call answered. */
export interface Answer {
  status: number;
  headers: Headers;
  body: Body;
}

/** Options of one call: the bearer token (null sends none) and a JSON body. */
export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Extra request headers (e.g. `Idempotency-Key`). */
  headers?: Record<string, string>;
}

/** The operations of the OpenAPI document the typed client was generated from: path template → method → documented statuses. */
type DocumentedStatuses = Record<string, Record<string, Record<string, unknown>>>;

let documented: DocumentedStatuses | undefined;
function documentedStatuses(): DocumentedStatuses {
  if (documented === undefined) {
    const document = JSON.parse(readFileSync(OPENAPI_DOCUMENT_URL, 'utf8')) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    documented = Object.fromEntries(Object.entries(document.paths).map(([path, methods]) => [path, Object.fromEntries(Object.entries(methods).map(([method, operation]) => [method.toUpperCase(), operation.responses]))]));
  }
  return documented;
}

/**
 * Holds every typed call to the API document (packages/client, generated from it): the answer's
 * status must be one the document declares for that operation, and a JSON:API body must come
 * with the JSON:API media type. So a change of the API that the document does not describe fails
 * the end-to-end tests at once, besides `tsc` failing on paths, parameters and bodies.
 */
const documentedAnswers: Middleware = {
  onResponse({ schemaPath, request, response }) {
    const responses = documentedStatuses()[schemaPath]?.[request.method];
    if (responses === undefined) throw new Error(`${request.method} ${schemaPath} is not in the API document`);
    if (responses[String(response.status)] === undefined) throw new Error(`${request.method} ${schemaPath} answered ${response.status}, which the API document does not declare (it declares ${Object.keys(responses).join(', ')})`);
    if (response.status !== 204) expect(response.headers.get('content-type'), `${request.method} ${schemaPath}`).toBe('application/vnd.api+json');
    return undefined;
  },
};

/**
 * A JSON:API client of one running gateway for end-to-end tests. `typed` is the generated
 * client of @inkwell/client (paths, parameters and bodies checked against the API document by
 * tsc, answers checked against it at run time); `answer` turns its results into an Answer and
 * `auth` gives the headers of a token. `call` sends a raw request to a path under the API base
 * (or an absolute URL, e.g. a `links.next`) — for what the document cannot express: malformed
 * paths, parameters and bodies that a test sends on purpose. `defaultToken` is used when a call
 * names none.
 */
export class JsonApiClient {
  /** The typed client (openapi-fetch); pass `headers: client.auth(token)` to each call, or use {@link as}. */
  readonly typed: InkwellClient;
  readonly #bound = new Map<string | null, InkwellClient>();

  constructor(
    private readonly apiUrl: string,
    private readonly defaultToken: () => string,
  ) {
    this.typed = createInkwellClient({ baseUrl: apiUrl });
    this.typed.use(documentedAnswers);
  }

  /**
   * The typed client that sends `token` as its bearer (the default token when undefined, none
   * when null), its answers checked against the document like {@link typed}'s:
   * `client.as(user.token).GET('/stories/{id}', …)`.
   */
  as(token: string | null = this.defaultToken()): InkwellClient {
    let bound = this.#bound.get(token);
    if (bound === undefined) {
      bound = createInkwellClient({ baseUrl: this.apiUrl, token: () => token ?? undefined });
      bound.use(documentedAnswers);
      this.#bound.set(token, bound);
    }
    return bound;
  }

  /** The Authorization header of `token` (the default token when undefined, none when null). */
  auth(token?: string | null): Record<string, string> {
    const value = token === undefined ? this.defaultToken() : token;
    return value === null ? {} : { Authorization: `Bearer ${value}` };
  }

  /** Sends `method path` and returns status, headers and the parsed document ({} for an empty body). */
  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers, ...this.auth(options.token) };
    if (options.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/vnd.api+json';
    const url = path.startsWith('http') ? path : `${this.apiUrl}${path}`;
    const response = await fetch(url, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Body) };
  }
}

/** What a typed call (openapi-fetch) gives back: the success document typed by the API document as `data`, or the errors. */
export interface TypedResult<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** The Answer of a typed call: its status, headers and document (the data or the errors). */
export function answer(result: TypedResult<unknown>): Answer {
  const body = (result.data ?? result.error ?? {}) as Body;
  return { status: result.response.status, headers: result.response.headers, body };
}

const asAnswer = (result: Answer | TypedResult<unknown>): Answer => ('response' in result ? answer(result) : result);

/**
 * Asserts `status` (the errors are the failure message) and returns the document: for a typed
 * call, typed as the API document declares its success answer (undefined for a 204).
 */
export function ok<D>(result: TypedResult<D>, status?: number): D;
export function ok(answer: Answer, status?: number): Body;
export function ok(result: Answer | TypedResult<unknown>, status = 200): unknown {
  const { status: actual, body } = asAnswer(result);
  expect(actual, JSON.stringify(body.errors)).toBe(status);
  return 'response' in result ? result.data : body;
}

/** Asserts the status and the code of the first error, and its `source` when given (of a typed or a raw call). */
export function expectError(result: Answer | TypedResult<unknown>, status: number, code: string, source?: { parameter?: string; pointer?: string; header?: string }): void {
  const { status: actual, body } = asAnswer(result);
  expect(actual, JSON.stringify(body)).toBe(status);
  expect(body.errors?.[0]?.code, JSON.stringify(body)).toBe(code);
  if (source !== undefined) expect(body.errors?.[0]?.source).toEqual(source);
}

/** Request options of a typed call that send the query of a link the API gave, as it is ({@link follow}). */
export interface FollowOptions {
  querySerializer: () => string;
}

/**
 * Request options of a typed call that send the query of `link` (an absolute URL the API gave,
 * e.g. `links.next`) as it is, in place of the call's own `params.query`:
 * `client.as(token).GET('/stories', { params: { query }, ...follow(next) })` follows the link
 * through the typed client, so its answer is typed and checked like the first page's.
 */
export function follow(link: string): FollowOptions {
  const query = new URL(link).search.slice(1);
  return { querySerializer: () => query };
}

/**
 * Each page of a cursor list through typed calls (each asserted 200): `page(undefined)` asks for
 * the first page, then `page(follow(links.next))` for each next one until a page has no
 * `links.next`; spread `next` into the first page's options:
 * `pages((next) => api.GET('/stories', { params: { query }, ...next }))`.
 */
export async function* pages<P extends { links: { next?: string } }>(page: (next: FollowOptions | undefined) => Promise<TypedResult<P>>): AsyncGenerator<P> {
  let next: FollowOptions | undefined;
  do {
    const body: P = ok(await page(next));
    yield body;
    next = body.links.next === undefined ? undefined : follow(body.links.next);
  } while (next !== undefined);
}

/** Every item of a cursor list through typed calls, page by page as {@link pages} asks for them. */
export async function walkPages<R>(page: (next: FollowOptions | undefined) => Promise<TypedResult<{ data: R[]; links: { next?: string } }>>): Promise<R[]> {
  const items: R[] = [];
  for await (const body of pages(page)) items.push(...body.data);
  return items;
}

/**
 * Polls `probe` until `accept` holds for its result and returns that result, or fails after
 * `timeoutMs` with the last result: for values that follow from events (a shelf's stories reach
 * the stories service within about a second). Never a fixed sleep: it returns as soon as the
 * condition holds.
 */
export function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  return eventuallyValue(probe, accept, { timeoutMs, what });
}

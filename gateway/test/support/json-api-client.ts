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
  /** The typed client (openapi-fetch); pass `headers: client.auth(token)` to each call. */
  readonly typed: InkwellClient;

  constructor(
    private readonly apiUrl: string,
    private readonly defaultToken: () => string,
  ) {
    this.typed = createInkwellClient({ baseUrl: apiUrl });
    this.typed.use(documentedAnswers);
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

  /** Every item of a cursor list, following `links.next` until it is absent. */
  async walk(path: string, token?: string): Promise<Resource[]> {
    const items: Resource[] = [];
    let next: string | undefined = path;
    while (next !== undefined) {
      const body = ok(await this.call('GET', next, { token }));
      items.push(...(body.data ?? []));
      next = body.links?.next;
    }
    return items;
  }
}

/** The Answer of a typed call: its status, headers and document (the data or the errors). */
export function answer(result: { data?: unknown; error?: unknown; response: Response }): Answer {
  const body = (result.data ?? result.error ?? {}) as Body;
  return { status: result.response.status, headers: result.response.headers, body };
}

/** Asserts `status` (the errors are the failure message) and returns the document. */
export function ok(answer: Answer, status = 200): Body {
  expect(answer.status, JSON.stringify(answer.body.errors)).toBe(status);
  return answer.body;
}

/** Asserts the status and the code of the first error, and its `source` when given. */
export function expectError(answer: Answer, status: number, code: string, source?: { parameter?: string; pointer?: string; header?: string }): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.errors?.[0]?.code, JSON.stringify(answer.body)).toBe(code);
  if (source !== undefined) expect(answer.body.errors?.[0]?.source).toEqual(source);
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

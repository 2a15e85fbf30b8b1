import { expect } from 'vitest';

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

/**
 * A JSON:API client of one running gateway for end-to-end tests: `call` sends a request to a
 * path under the API base (or an absolute URL, e.g. a `links.next`) with a bearer token, and
 * parses the answer. `defaultToken` is used when a call names none.
 */
export class JsonApiClient {
  constructor(
    private readonly apiUrl: string,
    private readonly defaultToken: () => string,
  ) {}

  /** Sends `method path` and returns status, headers and the parsed document ({} for an empty body). */
  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.defaultToken() : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
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
export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: never held within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One answer of the API, as the load and the fuzzer see it. */
export interface ApiAnswer {
  /** HTTP status; 0 when no answer came (see `error`). */
  readonly status: number;
  readonly headers: Headers;
  /** The body text (empty for 204). */
  readonly text: string;
  /** The parsed JSON body, when it is JSON. */
  readonly json: unknown;
  /** The network error code (`ECONNREFUSED`, `ECONNRESET`, `UND_ERR_SOCKET`, `TimeoutError`…) when no answer came. */
  readonly error?: string;
}

/** A request to the API: path under /api/v1, method, bearer token, JSON:API body, extra headers. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly token?: string;
  readonly body?: unknown;
  /** A raw body sent as is (the fuzzer's malformed JSON); wins over `body`. */
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
  readonly timeoutMs?: number;
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: string; name?: string } }).cause;
  return cause?.code ?? cause?.name ?? (error as { name?: string }).name ?? String(error);
}

/**
 * Sends one request to the API at `apiUrl` (e.g. http://127.0.0.1:8080/api/v1) and never
 * throws: a failed connection is an answer with status 0 and the error's code.
 */
export async function callApi(apiUrl: string, request: ApiRequest): Promise<ApiAnswer> {
  const headers: Record<string, string> = { accept: 'application/vnd.api+json', ...(request.token === undefined ? {} : { authorization: `Bearer ${request.token}` }) };
  const body = request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
  if (body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  Object.assign(headers, request.headers);
  try {
    const response = await fetch(`${apiUrl}${request.path}`, { method: request.method, headers, body, signal: AbortSignal.timeout(request.timeoutMs ?? 20_000) });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  } catch (error) {
    return { status: 0, headers: new Headers(), text: '', json: undefined, error: errorCode(error) };
  }
}

/** `data.id` of a JSON:API answer (the created resource), or undefined. */
export function dataId(answer: ApiAnswer): string | undefined {
  const data = (answer.json as { data?: { id?: unknown } } | undefined)?.data;
  return typeof data?.id === 'string' ? data.id : undefined;
}

/** How often {@link expectApi} asks again after a `503` with `Retry-After`. */
const SETUP_RETRIES = 5;

/**
 * Like {@link callApi}, but fails unless the status is `expected` (for setting up data). A `503`
 * with `Retry-After` (a busy or recovering backend) is asked again after the advised pause (at
 * most 5 s, {@link SETUP_RETRIES} times), as a well-behaved client would.
 */
export async function expectApi(apiUrl: string, request: ApiRequest, expected: number): Promise<ApiAnswer> {
  for (let attempt = 0; ; attempt++) {
    const answer = await callApi(apiUrl, request);
    const retryAfter = answer.headers.get('retry-after');
    if (answer.status === 503 && retryAfter !== null && attempt < SETUP_RETRIES) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(5, Math.max(1, Number(retryAfter) || 1)) * 1000));
      continue;
    }
    if (answer.status !== expected) throw new Error(`${request.method} ${request.path}: expected ${expected}, got ${answer.status} ${answer.error ?? answer.text.slice(0, 500)}`);
    return answer;
  }
}

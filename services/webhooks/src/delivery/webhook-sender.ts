import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-guard.js';
import { AddressRefusedError, guardedLookup, systemResolver, type Resolver } from './guarded-lookup.js';

/** Why an attempt failed (the log's `last_error`, docs/api/webhooks.md, "The delivery log"). */
export type AttemptError = 'timeout' | 'connection_failed' | 'address_refused' | 'redirect' | 'http_status' | 'tls';

/** One HTTP attempt of a delivery. */
export interface AttemptRequest {
  url: string;
  /** The Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature). */
  headers: Readonly<Record<string, string>>;
  body: string;
}

/** What an attempt came to: success is a 2xx response head within the timeout. */
export interface AttemptOutcome {
  ok: boolean;
  statusCode?: number;
  error?: AttemptError;
  /** From the start of the attempt to the response head; absent without a response. */
  latencyMs?: number;
}

/** Options of {@link WebhookSender}. */
export interface WebhookSenderOptions {
  policy: AddressPolicy;
  /** Resolves host names (default: the system resolver); tests give their own. */
  resolver?: Resolver;
  /** The whole attempt's deadline (default 10 s). */
  timeoutMs?: number;
  /** How much of a response body is read before the connection is dropped (default 64 KiB). */
  maxResponseBytes?: number;
}

const USER_AGENT = 'Inkwell-Webhooks/1';

/**
 * Makes the HTTP POSTs of deliveries under the rules of docs/api/webhooks.md, "Outbound safety":
 * https only (http to allowlisted hosts), the resolved address checked at connect time by the
 * guarded lookup (an IP literal host is checked before connecting), redirects never followed (a
 * 3xx fails), one connection per attempt, a 10 s deadline for the whole attempt, and at most
 * `maxResponseBytes` of the body read before the connection is dropped.
 */
export class WebhookSender {
  readonly #policy: AddressPolicy;
  readonly #lookup: ReturnType<typeof guardedLookup>;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;

  constructor(options: WebhookSenderOptions) {
    this.#policy = options.policy;
    this.#lookup = guardedLookup(options.policy, options.resolver ?? systemResolver);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  }

  /** Whether `url` may receive deliveries at all (scheme and literal address); undefined when it may, else why not. */
  refusal(url: string): string | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'The URL is not an absolute URL.';
    }
    const host = parsed.hostname;
    if (host === '') return 'The URL has no host.';
    if (parsed.username !== '' || parsed.password !== '') return 'The URL must not contain credentials.';
    if (parsed.hash !== '' || url.includes('#')) return 'The URL must not contain a fragment.';
    if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && this.#policy.allowsHost(host))) return 'The URL must use https.';
    const literal = host.startsWith('[') ? host.slice(1, -1) : host;
    if (isIP(literal) !== 0 && !this.#policy.allowsAddress(host, literal)) return 'The URL must not name a loopback, private, link-local or other non-public address.';
    return undefined;
  }

  /** Sends one attempt; never throws (every failure is an outcome). */
  send(attempt: AttemptRequest, signal?: AbortSignal): Promise<AttemptOutcome> {
    if (this.refusal(attempt.url) !== undefined) return Promise.resolve({ ok: false, error: 'address_refused' });
    const url = new URL(attempt.url);
    const started = performance.now();
    const body = Buffer.from(attempt.body, 'utf8');
    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        agent: false,
        lookup: this.#lookup,
        headers: { ...attempt.headers, 'content-type': 'application/json', 'content-length': String(body.length), 'user-agent': USER_AGENT },
      });
      const timer = setTimeout(() => {
        finish({ ok: false, error: 'timeout' });
        request.destroy();
      }, this.#timeoutMs);
      const onAbort = () => {
        finish({ ok: false, error: 'timeout' });
        request.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      request.on('response', (response) => {
        const statusCode = response.statusCode ?? 0;
        const latencyMs = Math.round(performance.now() - started);
        const ok = statusCode >= 200 && statusCode < 300;
        finish({ ok, statusCode, latencyMs, ...(ok ? {} : { error: statusCode >= 300 && statusCode < 400 ? 'redirect' : 'http_status' }) });
        this.#drain(response, () => request.destroy());
      });
      request.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, error: attemptError(error) }));
      request.end(body);
    });
  }

  /** Reads at most maxResponseBytes of the body, then drops the connection (the body is never used). */
  #drain(response: IncomingMessage, destroy: () => void): void {
    let read = 0;
    const deadline = setTimeout(destroy, this.#timeoutMs);
    deadline.unref();
    response.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > this.#maxResponseBytes) destroy();
    });
    response.on('close', () => clearTimeout(deadline));
    response.on('error', () => {});
  }
}

function attemptError(error: NodeJS.ErrnoException): AttemptError {
  if (error instanceof AddressRefusedError) return 'address_refused';
  const code = error.code ?? '';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/.test(code)) return 'tls';
  if (code === 'ETIMEDOUT') return 'timeout';
  return 'connection_failed';
}

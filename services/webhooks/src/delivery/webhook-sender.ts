import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
 * How long an idle kept-alive connection stays open: below the 5 s most servers keep theirs (Node's
 * default), and shorter still when a response announces less (`Keep-Alive: timeout=…`).
 */
const IDLE_CONNECTION_MS = 4_000;
/** Idle connections kept per origin. */
const IDLE_CONNECTIONS_PER_ORIGIN = 4;

/**
 * Makes the HTTP POSTs of deliveries under the rules of docs/api/webhooks.md, "Outbound safety":
 * https only (http to allowlisted hosts), the resolved address checked at connect time by the
 * guarded lookup (an IP literal host is checked before connecting; a kept-alive connection is
 * one whose address was checked when it was opened), redirects never followed (a 3xx fails), a
 * 10 s deadline for the whole attempt, and at most `maxResponseBytes` of the body read before the
 * connection is dropped. Connections are kept alive per origin for a few seconds (so an endpoint
 * receiving a stream of deliveries does not pay a connection, or a TLS handshake, for each); an
 * attempt whose reused connection turns out closed by the receiver is made again at once on a new one.
 */
export class WebhookSender {
  readonly #policy: AddressPolicy;
  readonly #lookup: ReturnType<typeof guardedLookup>;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #httpAgent = new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS, maxFreeSockets: IDLE_CONNECTIONS_PER_ORIGIN, scheduling: 'lifo' });
  readonly #httpsAgent = new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS, maxFreeSockets: IDLE_CONNECTIONS_PER_ORIGIN, scheduling: 'lifo' });

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
  async send(attempt: AttemptRequest, signal?: AbortSignal): Promise<AttemptOutcome> {
    if (this.refusal(attempt.url) !== undefined) return { ok: false, error: 'address_refused' };
    const started = performance.now();
    const first = await this.#post(attempt, started, true, signal);
    // A kept-alive connection the receiver closed meanwhile fails before anything was answered: once more on a new one.
    return first.staleConnection ? (await this.#post(attempt, started, false, signal)).outcome : first.outcome;
  }

  /** Closes the idle kept-alive connections (the process is stopping). */
  close(): void {
    this.#httpAgent.destroy();
    this.#httpsAgent.destroy();
  }

  /** One POST, within what is left of the attempt's deadline; `staleConnection` when a reused connection was found closed. */
  #post(attempt: AttemptRequest, started: number, reuse: boolean, signal?: AbortSignal): Promise<{ outcome: AttemptOutcome; staleConnection?: boolean }> {
    const url = new URL(attempt.url);
    const body = Buffer.from(attempt.body, 'utf8');
    const https = url.protocol === 'https:';
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: AttemptOutcome, staleConnection = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve({ outcome, staleConnection });
      };
      const request = (https ? httpsRequest : httpRequest)(url, {
        method: 'POST',
        agent: reuse ? (https ? this.#httpsAgent : this.#httpAgent) : false,
        lookup: this.#lookup,
        headers: { ...attempt.headers, 'content-type': 'application/json', 'content-length': String(body.length), 'user-agent': USER_AGENT },
      });
      const timer = setTimeout(() => {
        finish({ ok: false, error: 'timeout' });
        request.destroy();
      }, Math.max(0, this.#timeoutMs - (performance.now() - started)));
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
      request.on('error', (error: NodeJS.ErrnoException) => {
        const stale = reuse && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
        finish({ ok: false, error: attemptError(error) }, stale);
      });
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

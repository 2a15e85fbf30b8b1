import { Agent, request } from 'node:http';
import { quantile } from '@inkwell/testing';

/** One request of a scenario: a path under the API base URL and the bearer token to send. */
export interface BenchRequest {
  readonly path: string;
  /** The bearer token; empty: none is sent (public feeds). */
  readonly token: string;
  /** The path is under the gateway's origin instead of the API base (e.g. `/feeds/...`). */
  readonly outsideApi?: boolean;
}

/** How to drive a scenario. */
export interface LoadOptions {
  /** The API base URL, e.g. http://127.0.0.1:8080/api/v1. */
  readonly apiUrl: string;
  /** Cycled through in order by all workers together. */
  readonly requests: readonly BenchRequest[];
  /** Requests in flight at once (closed loop: each worker sends its next request when the last one is answered). */
  readonly concurrency: number;
  /** Measured time. */
  readonly durationMs: number;
  /**
   * Unmeasured time before it (connections, caches, JIT of the processes); it lasts at least one
   * pass over all requests, so that every token is known and every page has been read once.
   */
  readonly warmupMs: number;
  /** Called when the warm-up is over, right before the measured time starts (e.g. to read counters it is measured by). */
  readonly beforeMeasured?: () => Promise<void>;
}

/** What a load run measured. */
export interface LoadResult {
  readonly requests: number;
  /** Answers other than 200, and failed connections. */
  readonly errors: number;
  /** The first error seen, for the report. */
  readonly firstError?: string;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly requestsPerSecond: number;
}

/**
 * Drives `requests` against the API with a closed loop of `concurrency` workers over keep-alive
 * connections, first for `warmupMs` unmeasured, then for `durationMs` measured: the latency of a
 * request is from sending it to having read its whole body. Lightweight on purpose (node:http,
 * no per-request allocation beyond the request itself): the load generator shares the machine
 * with the system it measures.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.requests.length === 0) throw new Error('a scenario needs requests');
  const base = new URL(options.apiUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  let next = 0;
  let measuring = false;
  let stopAt = Date.now() + options.warmupMs;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;

  const once = (item: BenchRequest): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        { agent, host: base.hostname, port: base.port, path: item.outsideApi === true ? item.path : `${base.pathname}${item.path}`, headers: item.token === '' ? {} : { authorization: `Bearer ${item.token}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: res.statusCode === 200 ? '' : Buffer.concat(chunks).toString().slice(0, 300) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });

  const worker = async (): Promise<void> => {
    while (Date.now() < stopAt || (!measuring && next < options.requests.length)) {
      const item = options.requests[next++ % options.requests.length]!;
      const started = performance.now();
      let failure: string | undefined;
      try {
        const answer = await once(item);
        if (answer.status !== 200) failure = `${answer.status} ${item.path}: ${answer.body}`;
      } catch (error) {
        failure = `${item.path}: ${String(error)}`;
      }
      if (!measuring) continue;
      latencies.push(performance.now() - started);
      if (failure !== undefined) {
        errors++;
        firstError ??= failure;
      }
    }
  };

  const workers = () => Promise.all(Array.from({ length: options.concurrency }, worker));
  await workers();
  await options.beforeMeasured?.();
  measuring = true;
  const started = Date.now();
  stopAt = started + options.durationMs;
  await workers();
  const elapsed = (Date.now() - started) / 1000;
  agent.destroy();

  latencies.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    requests: latencies.length,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    p50Ms: round(quantile(latencies, 0.5)),
    p95Ms: round(quantile(latencies, 0.95)),
    p99Ms: round(quantile(latencies, 0.99)),
    maxMs: round(latencies.at(-1) ?? Number.NaN),
    requestsPerSecond: Math.round(latencies.length / elapsed),
  };
}

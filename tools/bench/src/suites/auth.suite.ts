import { cpus, loadavg } from 'node:os';
import { createTestUser } from '@inkwell/testing';
import type { BenchContext, Suite } from '../suite.js';
import { ensureWrk, median, round1, runWrk, type WrkResult } from '../wrk.runner.js';

/** Rounds of the comparison; each runs both variants, in alternating order. */
const ROUNDS = 5;
const ROUND_SECONDS = 10;
const WARMUP_SECONDS = 3;
/** Connections in flight: enough to saturate the gateway process (stack-findings.md measured with 32). */
const CONNECTIONS = 32;
/** The budget of the issue: authentication and rate limiting may cost at most this share of throughput. */
const BUDGET_PERCENT = 15;

type Variant = 'auth' | 'noauth';

/**
 * The price of docs/api/auth.md, "The token check on API requests" and docs/api/auth.md, "Rate limits" at the edge: authenticated `GET /api/v1/users/:id` (bearer-auth
 * with its token cache, the Redis rate-limit script, require-auth) against the same route through
 * the gateway's `/bench-noauth` pipeline (the same dispatcher and backend call, without those
 * policies; the runner starts the gateway with BENCH_NOAUTH=true), in the same process and run.
 * Measured with wrk (one thread, 32 connections) in alternating rounds, so that load from
 * elsewhere on the machine hits both variants alike; the overhead is the median of the
 * per-round throughput ratios.
 */
export const authSuite: Suite = {
  name: 'auth',
  dataSet: 'GET /api/v1/users/:id with and without authentication and rate limiting',

  async prepare() {
    ensureWrk();
  },

  async report(context: BenchContext) {
    const user = await createTestUser(context.system, { scopes: ['read_user'] });
    const base = context.system.gatewayUrl;
    const urls: Record<Variant, string> = { auth: `${base}/api/v1/users/${user.id}`, noauth: `${base}/bench-noauth/api/v1/users/${user.id}` };
    const headers = { Authorization: `Bearer ${user.token}` };
    const probe = await fetch(urls.noauth);
    if (probe.status !== 200) throw new Error(`the no-auth pipeline answered ${probe.status}: is the gateway running with BENCH_NOAUTH=true?`);

    for (const variant of ['auth', 'noauth'] as const) await runWrk({ url: urls[variant], headers, connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS });
    const results: Record<Variant, WrkResult[]> = { auth: [], noauth: [] };
    const loads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order: Variant[] = round % 2 === 0 ? ['auth', 'noauth'] : ['noauth', 'auth'];
      for (const variant of order) {
        const result = await runWrk({ url: urls[variant], headers, connections: CONNECTIONS, durationSeconds: ROUND_SECONDS });
        results[variant].push(result);
        process.stderr.write(`    round ${round + 1} ${variant}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms\n`);
      }
      loads.push(loadavg()[0] as number);
    }

    const ratios = results.auth.map((auth, i) => auth.requestsPerSecond / (results.noauth[i] as WrkResult).requestsPerSecond);
    const overhead = (1 - median(ratios)) * 100;
    const line = (label: string, runs: readonly WrkResult[]) =>
      `| ${label} | ${Math.round(median(runs.map((r) => r.requestsPerSecond)))} | ${round1(median(runs.map((r) => r.p50Ms)))} | ${round1(median(runs.map((r) => r.p99Ms)))} | ${runs.reduce((sum, r) => sum + r.errors, 0)} |`;
    return [
      `Date ${new Date().toISOString().slice(0, 10)}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), wrk, the gateway, every service, Postgres and Redis all on it. wrk -t1 -c${CONNECTIONS}; ${ROUNDS} rounds of ${ROUND_SECONDS} s per variant, alternating which goes first, after ${WARMUP_SECONDS} s of warm-up each; medians over the rounds. 1-minute load average during the rounds: ${loads.map(round1).join(', ')}.`,
      '',
      '| path | req/s | p50 ms | p99 ms | errors |',
      '|---|---|---|---|---|',
      line('`GET /api/v1/users/:id` with a bearer token (bearer-auth, rate-limit, require-auth)', results.auth),
      line('the same route, policies off (`/bench-noauth`)', results.noauth),
      '',
      `Overhead of authentication + rate limiting: **${round1(overhead)}%** of throughput (median of the per-round ratios; budget ${BUDGET_PERCENT}%${overhead <= BUDGET_PERCENT ? ', met' : ', EXCEEDED'}). Per-round req/s — with: ${results.auth.map((r) => Math.round(r.requestsPerSecond)).join(', ')}; without: ${results.noauth.map((r) => Math.round(r.requestsPerSecond)).join(', ')}.`,
    ];
  },
};

import { cpus, loadavg } from 'node:os';
import { CALLER_SHARE_DEFAULTS } from '@inkwell/limits';
import { createTestUser, eventually, quantile, type TestUser } from '@inkwell/testing';
import { migrateSchemas } from '../seed.runner.js';
import type { BenchContext, Suite } from '../suite.js';
import { round1 } from '../wrk.runner.js';

/** Requests the abusive account keeps in flight (issue 22). */
const FLOOD_IN_FLIGHT = 8;
/** Measured seconds of each scenario, after the flood has run for WARMUP_SECONDS. */
const MEASURE_SECONDS = 20;
const WARMUP_SECONDS = 3;
/** Targets of docs/benchmarks.md ("abuse"). */
const WRITE_P95_TARGET_MS = 500;
const BROWSE_P95_TARGET_MS = 50;
/** Stories of the abusive account, each with a description just under 1 MiB (about 2 MB with its HTML). */
const BIG_STORIES = 12;
const LONG_DESCRIPTION = 'word '.repeat(200_000);
/** Markdown that takes its whole render deadline (docs/api/foundation.md, "Markdown"): 1 MiB of image openers. */
const SLOW_MARKDOWN = '!['.repeat(512 * 1024);
/** Ordinary stories published after the big ones, so that the front page is the site's, as it would be. */
const ORDINARY_STORIES = 25;

/** One answer of a measured request: its status and how long it took. */
interface Timed {
  readonly status: number;
  readonly ms: number;
}

/** What a closed loop of workers saw: every answer, by status. */
interface LoopResult {
  readonly timings: Timed[];
}

/**
 * Runs `workers` closed loops of `send` until `stopAt` (ms since the epoch): each sends its next
 * request when the last one is answered. Answers before `measureFrom` are not kept.
 */
async function closedLoop(workers: number, send: () => Promise<number>, measureFrom: number, stopAt: number): Promise<LoopResult> {
  const timings: Timed[] = [];
  const worker = async () => {
    while (Date.now() < stopAt) {
      const started = performance.now();
      let status: number;
      try {
        status = await send();
      } catch {
        status = 0;
      }
      if (Date.now() >= measureFrom) timings.push({ status, ms: performance.now() - started });
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { timings };
}

/** A request through the gateway as `token`: its status, with the body read to the end. */
async function call(apiUrl: string, token: string, method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function created(apiUrl: string, token: string, path: string, body: unknown): Promise<string> {
  const response = await fetch(`${apiUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

const chapterBody = (content: string) => ({ data: { type: 'chapter', attributes: { title: 'Chapter', content, published: true } } });

async function publishStory(apiUrl: string, user: TestUser, title: string, description: string): Promise<string> {
  const id = await created(apiUrl, user.token, '/stories', { data: { type: 'story', attributes: { title, description } } });
  await created(apiUrl, user.token, `/stories/${id}/chapters`, chapterBody('A few words.'));
  const status = await call(apiUrl, user.token, 'PATCH', `/stories/${id}`, { data: { type: 'story', id, attributes: { published: true } } });
  if (status !== 200) throw new Error(`publishing story ${id} answered ${status}`);
  return id;
}

/** The row of one measured loop: p50/p95/p99 and what answered. */
function summary(result: LoopResult): { p50: number; p95: number; p99: number; count: number; byStatus: string; serverErrors: number } {
  const sorted = result.timings.map((t) => t.ms).sort((a, b) => a - b);
  const counts = new Map<number, number>();
  for (const t of result.timings) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
  const byStatus = [...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${n}× ${status === 0 ? 'failed' : status}`).join(', ');
  const serverErrors = result.timings.filter((t) => t.status === 0 || t.status >= 500).length;
  return { p50: round1(quantile(sorted, 0.5)), p95: round1(quantile(sorted, 0.95)), p99: round1(quantile(sorted, 0.99)), count: sorted.length, byStatus, serverErrors };
}

/**
 * One abusive account against everyone else (issue 22), through the gateway with the bench's
 * lifted rate limits (so what is measured is the budgets themselves, not the rate limiter) and
 * each caller's share of the gateway as deployed:
 * 1. render flood: the abuser keeps 8 chapter writes of Markdown that takes its whole render
 *    deadline in flight, without backing off; another account writes small chapters one after
 *    another: p95 ≤ 500 ms and no 5xx;
 * 2. list flood: the abuser keeps 8 reads of its own twelve 1 MiB-description stories
 *    (`filter[author]`) in flight; another account reads the default browse page: p95 ≤ 50 ms.
 * Needs no seeded data: everything it uses is made through the API at the start.
 */
export const abuseSuite: Suite = {
  name: 'abuse',
  dataSet: 'one account flooding slow Markdown and 1 MiB descriptions while others write and browse (made through the API; any database)',
  // Each caller's share of the gateway as deployed (the runner lifts it for the other suites).
  systemEnv: {
    CALLER_IN_FLIGHT_MAX: String(CALLER_SHARE_DEFAULTS.inFlight),
    CALLER_WAITING_MAX: String(CALLER_SHARE_DEFAULTS.waiting),
    CALLER_BYTES_PER_SECOND: String(CALLER_SHARE_DEFAULTS.bytesPerSecond),
  },

  async prepare(databaseUrl) {
    migrateSchemas(databaseUrl);
  },

  async report(context: BenchContext) {
    const apiUrl = context.system.apiUrl;
    const scopes = ['read_stories', 'write_stories'];
    const [abuser, writer, reader] = await Promise.all([createTestUser(context.system, { scopes }), createTestUser(context.system, { scopes }), createTestUser(context.system, { scopes: ['read_stories'] })]);
    process.stderr.write(`    making ${BIG_STORIES} stories of 1 MiB descriptions and ${ORDINARY_STORIES} ordinary ones\n`);
    for (let i = 0; i < BIG_STORIES; i++) await publishStory(apiUrl, abuser, `Long ${i}`, LONG_DESCRIPTION);
    for (let i = 0; i < ORDINARY_STORIES; i++) await publishStory(apiUrl, writer, `Ordinary ${i}`, 'A short description.');
    const abuserList = `/stories?filter[author]=${abuser.id}&page[size]=20`;
    await eventually(async () => (await fetch(`${apiUrl}/stories?filter[author]=${writer.id}&page[size]=1`, { headers: { authorization: `Bearer ${reader.token}` } }).then((r) => r.json() as Promise<{ meta?: { total?: number } }>)).meta?.total === ORDINARY_STORIES, { timeoutMs: 120_000, intervalMs: 500 });
    const abuserStory = await created(apiUrl, abuser.token, '/stories', { data: { type: 'story', attributes: { title: 'Flood' } } });
    const writerStory = await created(apiUrl, writer.token, '/stories', { data: { type: 'story', attributes: { title: 'Everyday writing' } } });

    const scenario = async (flood: () => Promise<number>, victim: () => Promise<number>) => {
      const start = Date.now();
      const measureFrom = start + WARMUP_SECONDS * 1000;
      const stopAt = measureFrom + MEASURE_SECONDS * 1000;
      const [abusive, measured] = await Promise.all([closedLoop(FLOOD_IN_FLIGHT, flood, measureFrom, stopAt), closedLoop(1, victim, measureFrom, stopAt)]);
      return { abusive: summary(abusive), measured: summary(measured), load: round1(loadavg()[0] as number) };
    };

    process.stderr.write('==> abuse: render flood\n');
    const render = await scenario(
      () => call(apiUrl, abuser.token, 'POST', `/stories/${abuserStory}/chapters`, chapterBody(SLOW_MARKDOWN)),
      () => call(apiUrl, writer.token, 'POST', `/stories/${writerStory}/chapters`, chapterBody('A small chapter of a few words.')),
    );
    process.stderr.write('==> abuse: list flood\n');
    const list = await scenario(
      () => call(apiUrl, abuser.token, 'GET', abuserList),
      () => call(apiUrl, reader.token, 'GET', '/stories'),
    );

    const verdict = (p95: number, target: number, serverErrors: number) => (p95 <= target && serverErrors === 0 ? 'met' : '**MISSED**');
    return [
      `Date ${new Date().toISOString().slice(0, 10)}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}); the load generator, gateway, services, Postgres, Redis, Kafka and OpenSearch all on it. Each scenario: the abusive account keeps ${FLOOD_IN_FLIGHT} requests in flight (no back-off; rate limits lifted as in every suite, each caller's share of the gateway at its defaults) while one other account sends one request at a time; ${MEASURE_SECONDS} s measured after ${WARMUP_SECONDS} s of flood.`,
      '',
      '| scenario | measured requests | p50 ms | p95 ms | p99 ms | measured answers | abusive answers | load avg | target |',
      '|---|---|---|---|---|---|---|---|---|',
      `| render flood: another account's small chapter writes while one account writes chapters of Markdown that takes the whole render deadline | ${render.measured.count} | ${render.measured.p50} | ${render.measured.p95} | ${render.measured.p99} | ${render.measured.byStatus} | ${render.abusive.byStatus} | ${render.load} | p95 ≤ ${WRITE_P95_TARGET_MS}, no 5xx: ${verdict(render.measured.p95, WRITE_P95_TARGET_MS, render.measured.serverErrors)} |`,
      `| list flood: the default browse page while one account reads its twelve 1 MiB-description stories | ${list.measured.count} | ${list.measured.p50} | ${list.measured.p95} | ${list.measured.p99} | ${list.measured.byStatus} | ${list.abusive.byStatus} | ${list.load} | p95 ≤ ${BROWSE_P95_TARGET_MS}: ${verdict(list.measured.p95, BROWSE_P95_TARGET_MS, list.measured.serverErrors)} |`,
    ];
  },
};

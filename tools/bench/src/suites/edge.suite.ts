import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createTestUser, eventually } from '@inkwell/testing';
import { withSchema } from '../plans.js';
import { cpuSeconds } from '../process-cpu.js';
import type { BenchContext, Suite } from '../suite.js';
import { ensureWrk, median, round1, runWrk, type WrkResult } from '../wrk.runner.js';
import { prepareStories } from './stories.suite.js';

/** Rounds; each drives every target once, in an order that reverses from round to round. */
const ROUNDS = 4;
const ROUND_SECONDS = 10;
const WARMUP_SECONDS = 3;
/** Connections in flight, as in the measurement that opened the issue. */
const CONNECTIONS = 32;
/** The targets of docs/benchmarks.md ("edge"); p99 and the share of bare as issue 29 tightened them. */
const BY_ID_MIN_RPS = 2000;
const BY_ID_MAX_P99_MS = 15;
const BY_ID_MIN_BARE_SHARE = 1 / 6;
const BROWSE_MIN_RPS = 800;
/** How long to wait for the search index the browse page needs. */
const INDEX_WAIT_MS = 20 * 60_000;
/** Where the profiled round writes CPU profiles (unset: no profiled round); see src/cpu-profile.hook.mjs. */
const PROFILE_DIR = process.env.CPU_PROFILE_DIR;
/** The processes profiled. */
const PROFILED = ['gateway', 'stories', 'users'] as const;

type Target = 'bare' | 'story' | 'user' | 'browse';
const LABELS: Record<Target, string> = {
  bare: 'bare node:http server (fixed 2 KiB JSON)',
  story: '`GET /api/v1/stories/:id` (published, another user reading)',
  user: '`GET /api/v1/users/:id` (another user reading)',
  browse: '`GET /api/v1/stories` (first browse page, 20 stories)',
};

/** A bare node:http server answering one fixed JSON body: what the machine can do per request without any of our code. */
const BARE_SERVER = `
const body = JSON.stringify({ data: { type: 'story', id: '1', attributes: { text: 'x'.repeat(2000) } } });
require('node:http').createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/vnd.api+json' }); res.end(body); })
  .listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });`;

async function startBareServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare server exited with ${code}`)));
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  return { child, url: `http://127.0.0.1:${port}/` };
}

/** One measured round of one target: wrk's numbers and the CPU milliseconds per request of each process. */
interface Measurement {
  readonly wrk: WrkResult;
  readonly cpuMsPerRequest: Readonly<Record<string, number>>;
}

/**
 * The API edge against the machine's ceiling: `GET /stories/:id` and `GET /users/:id` with a
 * real bearer token (auth and rate limiting on) and the first browse page `GET /stories`, each
 * driven by wrk (one thread, 32 connections) in rounds that alternate with a bare node:http
 * server in the same run, so that the share of the bare server's throughput is comparable
 * under the load of a shared machine. CPU per request per process comes from /proc/<pid>/stat
 * before and after each round.
 */
export const edgeSuite: Suite = {
  name: 'edge',
  dataSet: 'by-id reads and the browse page at the edge, against a bare node:http server (the stories suite\'s data)',

  async prepare(databaseUrl, options) {
    ensureWrk();
    await prepareStories(databaseUrl, options);
  },

  async report(context: BenchContext) {
    const story = await withSchema(context.databaseUrl, 'stories', async (client) => {
      const { rows } = await client.query<{ id: string; author_id: string }>('SELECT id::text, author_id::text FROM stories WHERE published ORDER BY date_published DESC LIMIT 1');
      return rows[0] ?? fail('no published story: the stories data set is missing');
    });
    const reader = await createTestUser(context.system, { scopes: ['read_stories', 'read_user'] });
    const api = context.system.apiUrl;
    const urls: Record<Exclude<Target, 'bare'>, string> = { story: `${api}/stories/${story.id}`, user: `${api}/users/${story.author_id}`, browse: `${api}/stories` };
    const headers = { Authorization: `Bearer ${reader.token}` };
    // The stories service builds its search index when there is none (GET /stories is 503 until
    // then, docs/api/stories.md, "Search", the rebuild; about 8 minutes for a million stories here).
    for (const url of Object.values(urls)) {
      await eventually(async () => (await fetch(url, { headers })).status === 200, { timeoutMs: INDEX_WAIT_MS, intervalMs: 5_000 });
    }

    const bare = await startBareServer();
    try {
      const pids: Record<string, number> = { bare: bare.child.pid ?? fail('no bare pid') };
      for (const running of context.system.processes) {
        if (['gateway', 'stories', 'users'].includes(running.name) && running.child.pid !== undefined) pids[running.name] = running.child.pid;
      }
      const targets = { bare: bare.url, ...urls };
      const order = Object.keys(targets) as Target[];
      for (const target of order) await runWrk({ url: targets[target], headers, connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS });

      const results: Record<Target, Measurement[]> = { bare: [], story: [], user: [], browse: [] };
      const loads: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const target of round % 2 === 0 ? order : [...order].reverse()) {
          const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
          const wrk = await runWrk({ url: targets[target], headers, connections: CONNECTIONS, durationSeconds: ROUND_SECONDS });
          const requests = wrk.requestsPerSecond * ROUND_SECONDS;
          const cpuMsPerRequest = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((cpuSeconds(pid) - (before[name] as number)) * 1000) / requests]));
          results[target].push({ wrk, cpuMsPerRequest });
          process.stderr.write(`    round ${round + 1} ${target}: ${Math.round(wrk.requestsPerSecond)} req/s, p50 ${wrk.p50Ms} ms, p99 ${wrk.p99Ms} ms, errors ${wrk.errors}\n`);
        }
        loads.push(loadavg()[0] as number);
      }
      if (PROFILE_DIR !== undefined) await profileRounds(PROFILE_DIR, targets, headers, pids);

      const shares = (target: Target) => results[target].map((m, i) => m.wrk.requestsPerSecond / (results.bare[i] as Measurement).wrk.requestsPerSecond);
      const cpu = (target: Target, name: string) => (target !== 'bare' && name === 'bare') || (target === 'bare' && name !== 'bare') ? '–' : String(round2(median(results[target].map((m) => m.cpuMsPerRequest[name] ?? 0))));
      const line = (target: Target) => {
        const runs = results[target];
        const share = target === 'bare' ? '1' : `1/${round1(1 / median(shares(target)))}`;
        return `| ${LABELS[target]} | ${Math.round(median(runs.map((m) => m.wrk.requestsPerSecond)))} | ${round1(median(runs.map((m) => m.wrk.p50Ms)))} | ${round1(median(runs.map((m) => m.wrk.p99Ms)))} | ${share} | ${cpu(target, 'gateway')} | ${cpu(target, 'stories')} | ${cpu(target, 'users')} | ${cpu(target, 'bare')} | ${runs.reduce((sum, m) => sum + m.wrk.errors, 0)} |`;
      };
      const verdict = (target: 'story' | 'user') => {
        const rps = median(results[target].map((m) => m.wrk.requestsPerSecond));
        const p99 = median(results[target].map((m) => m.wrk.p99Ms));
        const share = median(shares(target));
        const met = rps >= BY_ID_MIN_RPS && p99 <= BY_ID_MAX_P99_MS && share >= BY_ID_MIN_BARE_SHARE;
        return `${target} by id ${met ? 'met' : 'MISSED'} (${Math.round(rps)} req/s, p99 ${round1(p99)} ms, 1/${round1(1 / share)} of bare)`;
      };
      const browse = median(results.browse.map((m) => m.wrk.requestsPerSecond));
      return [
        `Date ${new Date().toISOString().slice(0, 10)}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), shared with other work; wrk, the gateway, every service, Postgres, Redis and Kafka all on it. wrk -t1 -c${CONNECTIONS}; ${ROUNDS} rounds of ${ROUND_SECONDS} s per target, the order reversing each round, after ${WARMUP_SECONDS} s of warm-up each; medians over the rounds. 1-minute load average after each round: ${loads.map(round1).join(', ')}.`,
        '',
        '| target | req/s | p50 ms | p99 ms | share of bare (median per round) | gateway CPU ms/req | stories CPU ms/req | users CPU ms/req | bare CPU ms/req | errors |',
        '|---|---|---|---|---|---|---|---|---|---|',
        ...(['bare', 'story', 'user', 'browse'] as const).map(line),
        '',
        `Targets (by id ≥ ${BY_ID_MIN_RPS} req/s, p99 ≤ ${BY_ID_MAX_P99_MS} ms, ≥ 1/${round1(1 / BY_ID_MIN_BARE_SHARE)} of bare; browse ≥ ${BROWSE_MIN_RPS} req/s): ${verdict('story')}; ${verdict('user')}; browse ${browse >= BROWSE_MIN_RPS ? 'met' : 'MISSED'} (${Math.round(browse)} req/s).`,
      ];
    } finally {
      bare.child.kill('SIGTERM');
    }
  },
};

/**
 * One more, unmeasured round of each API target with the CPU profiler of every profiled process
 * on (SIGUSR2 on and off, src/cpu-profile.hook.mjs, which the processes must have loaded):
 * writes `<dir>/<target>.<process>.cpuprofile`.
 */
async function profileRounds(dir: string, targets: Readonly<Record<Target, string>>, headers: Readonly<Record<string, string>>, pids: Readonly<Record<string, number>>): Promise<void> {
  const profiled = PROFILED.filter((name) => pids[name] !== undefined).map((name) => ({ name, pid: pids[name] as number }));
  let written = 0;
  for (const target of ['story', 'user', 'browse'] as const) {
    for (const { pid } of profiled) process.kill(pid, 'SIGUSR2');
    const wrk = await runWrk({ url: targets[target], headers, connections: CONNECTIONS, durationSeconds: ROUND_SECONDS });
    for (const { pid } of profiled) process.kill(pid, 'SIGUSR2');
    written++;
    for (const { name, pid } of profiled) {
      const file = join(dir, `${name}-${pid}-${written}.cpuprofile`);
      await eventually(() => existsSync(file), { timeoutMs: 30_000 });
      renameSync(file, join(dir, `${target}.${name}.cpuprofile`));
    }
    process.stderr.write(`    profiled ${target}: ${Math.round(wrk.requestsPerSecond)} req/s with the profiler on; ${dir}/${target}.<process>.cpuprofile\n`);
  }
}


function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function fail(message: string): never {
  throw new Error(message);
}

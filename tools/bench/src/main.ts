import { cpus, loadavg, setPriority } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createGrpcClient, type GrpcClient } from '@inkwell/grpc';
import { UsersService } from '@inkwell/proto/users';
import { ensureDatabase, stackEnv, startSystem, type RunningSystem } from '@inkwell/testing';
import { contentsLine, countContents } from './database-contents.js';
import { runLoad, type LoadResult } from './load.runner.js';
import { CpuMeter, cpuCell } from './process-cpu.js';
import { writeSection } from './report.writer.js';
import { searchIndexPrefix } from './search.js';
import type { BenchContext, Suite } from './suite.js';
import { abuseSuite } from './suites/abuse.suite.js';
import { authSuite } from './suites/auth.suite.js';
import { downloadsSuite } from './suites/downloads.suite.js';
import { edgeSuite } from './suites/edge.suite.js';
import { idleSuite } from './suites/idle.suite.js';
import { messagesSuite } from './suites/messages.suite.js';
import { notificationsSuite } from './suites/notifications.suite.js';
import { shelvesSuite } from './suites/shelves.suite.js';
import { storiesSuite } from './suites/stories.suite.js';
import { webhooksSuite } from './suites/webhooks.suite.js';

/** Every suite of `npm run bench`: one line per area. */
const SUITES: readonly Suite[] = [storiesSuite, shelvesSuite, messagesSuite, notificationsSuite, authSuite, edgeSuite, abuseSuite, downloadsSuite, webhooksSuite, idleSuite];

const HELP = `npm run bench -- [options]

Seeds the benchmark database when it lacks a suite's data, starts every service and the gateway on
it (as npm run dev does; a suite may ask for its own settings, e.g. the stories suite turns the
gateway's caches off, and gets a system of its own), mints real tokens, and drives each scenario
through the gateway with a closed loop of concurrent requests. Prints a Markdown table (p50, p95,
p99, req/s, and what answered: the Postgres indexes used or the search engine's own time), and a
suite's further measurements. Ctrl-C or SIGTERM (to this process alone too) stops the system and
any index rebuild it runs, then exits with 130.

  --suite <name>        run only this suite (repeatable; default all: ${SUITES.map((suite) => suite.name).join(', ')})
  --database <db>       database next to DATABASE_URL's (default inkwell_bench)
  --concurrency <n>     requests in flight (default 4)
  --duration <s>        measured seconds per scenario (default 20; the webhooks suite's window, default 60)
  --warmup <s>          unmeasured seconds before each (default 3)
  --row <text>          only the table rows whose query contains this text (repeatable; e.g. --row
                        'by id' --row 'default browse'), without the suite's further measurements;
                        a quick look at a change, not with --write
  --scale <f>           share of each suite's data set to seed when missing (default 1; e.g. 0.01 to
                        check a fresh machine in minutes; data already there is kept; not with --write)
  --write <file>        also write each suite's section into this Markdown file (e.g. docs/benchmarks.md)
  --priority <n>        run the measured processes (load generator, services, gateway, and the
                        Postgres backends of the benchmark database) at this nice value, e.g. --priority=-10,
                        so that other work on a shared machine disturbs less (needs root for < 0)
`;

/** `npm run bench`: see HELP. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string', multiple: true },
      row: { type: 'string', multiple: true },
      database: { type: 'string', default: 'inkwell_bench' },
      concurrency: { type: 'string', default: '4' },
      duration: { type: 'string' },
      warmup: { type: 'string', default: '3' },
      write: { type: 'string' },
      scale: { type: 'string', default: '1' },
      priority: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const positive = (name: string, text: string) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not ${text}`);
    return n;
  };
  const concurrency = Math.round(positive('concurrency', values.concurrency));
  const durationMs = positive('duration', values.duration ?? '20') * 1000;
  const warmupMs = Number(values.warmup) * 1000;
  const scale = positive('scale', values.scale);
  // A table states the documented data set; a scaled run is a check, not a result.
  if (scale !== 1 && values.write !== undefined) throw new Error('--write records results of the full data sets only (no --scale)');
  // A section holds whole tables: a few rows of one would replace the last full table.
  if (values.row !== undefined && values.write !== undefined) throw new Error('--row is a quick look: not with --write');
  const chosenRow = (name: string) => values.row === undefined || values.row.some((text) => name.toLowerCase().includes(text.toLowerCase()));
  const priority = values.priority === undefined ? undefined : Number(values.priority);
  if (priority !== undefined && !(Number.isInteger(priority) && priority >= -20 && priority <= 19)) throw new Error('--priority must be a nice value from -20 to 19');
  const suites = values.suite === undefined ? SUITES : values.suite.map((name) => SUITES.find((suite) => suite.name === name) ?? fail(`unknown suite ${name}`));

  const stack = stackEnv();
  const databaseUrl = await ensureDatabase(stack.databaseUrl, values.database);
  const signal = interruption.signal;

  // Real tokens and the real pipeline, but rate limits far above what a benchmark sends.
  // BENCH_NOAUTH opens /bench-noauth/api/v1 (the API without auth and rate limits) for the auth suite.
  // Plain topic names, as in a deployment: the consumers find their topics in place (a fresh
  // test namespace starts empty, and a consumer may start before the producer created them).
  // One token drives a whole suite's load, so each caller's share of the gateway is lifted too
  // (the abuse suite measures with the defaults).
  const systemEnv = {
    LOG_LEVEL: 'warn',
    RATE_LIMIT_TOKEN_MAX: '1000000000',
    RATE_LIMIT_ANONYMOUS_MAX: '1000000000',
    CALLER_IN_FLIGHT_MAX: '1000000',
    CALLER_BYTES_PER_SECOND: '1000000000000',
    BENCH_NOAUTH: 'true',
    KAFKA_NAMESPACE: '',
    OPENSEARCH_INDEX_PREFIX: searchIndexPrefix(values.database),
  };
  // One system at a time, started again only when a suite asks for other settings than the last.
  let running: { settings: string; system: RunningSystem; users: GrpcClient<typeof UsersService>; context: BenchContext } | undefined;
  // Taken before stopping, so that a second call (the signal handler's, the end's) finds nothing to stop.
  const stopRunning = async () => {
    const stopping = running;
    running = undefined;
    if (stopping === undefined) return;
    stopping.users.close();
    await stopping.system.stop();
  };
  const contextFor = async (suite: Suite): Promise<BenchContext> => {
    const env = { ...systemEnv, ...suite.systemEnv };
    const settings = JSON.stringify(env);
    if (running?.settings === settings) return running.context;
    await stopRunning();
    process.stderr.write(`==> starting the system on the benchmark database${suite.systemEnv === undefined ? '' : ` with ${Object.entries(suite.systemEnv).map(([name, value]) => `${name}=${value}`).join(' ')}`}\n`);
    const system = await startSystem({ stack: { ...stack, databaseUrl }, ports: 'free', seedDemoData: false, env });
    const users = createGrpcClient(UsersService, system.addresses.users ?? fail('no users service'), { defaultDeadlineMs: 15_000, ...system.keys.clientOptions('gateway') });
    const context: BenchContext = {
      scale,
      system,
      databaseUrl,
      ...(values.duration === undefined ? {} : { durationMs }),
      signal,
      async mintToken(userId, scopes) {
        const { token } = await users.createPersonalToken({ name: 'benchmark', scopes: [...scopes] }, { caller: { requestId: 'bench', userId, scopes: [] } });
        return token;
      },
    };
    running = { settings, system, users, context };
    return context;
  };
  // Ctrl-C or SIGTERM (also sent to this process alone): the system and any child stop with it.
  stopOnSignals(stopRunning);
  for (const suite of suites) {
    process.stderr.write(`==> preparing ${suite.name}: ${suite.dataSet}\n`);
    await suite.prepare(databaseUrl, { scale, signal });
  }

  const lines: string[] = [];
  try {
    for (const suite of suites) {
      const context = await contextFor(suite);
      const system = context.system;
      // The heading names the suite's data set; the next line what the database really held (it may hold more).
      const section: string[] = [`### ${suite.name}: ${suite.dataSet}${scale === 1 ? '' : ` (at scale ${scale} of it)`}`, '', contentsLine(await countContents(databaseUrl)), ''];
      if (suite.report !== undefined) {
        process.stderr.write(`==> ${suite.name}\n`);
        section.push(...(await suite.report(context)), '');
        lines.push(...section);
        if (values.write !== undefined) writeSection(values.write, suite.name, section);
        continue;
      }
      const scenarios = ((await suite.scenarios?.(context)) ?? []).filter((scenario) => chosenRow(scenario.name));
      const sectionStart = lines.length;
      lines.push(...section, `Date ${new Date().toISOString().slice(0, 10)}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), the load generator, gateway, services and Postgres all on it; ${concurrency} requests in flight, ${durationMs / 1000} s per row after ${warmupMs / 1000} s of warm-up.`, '');
      if (priority !== undefined) lines.push(`The measured processes ran at nice ${priority}; other work on the machine at the default 0.`, '');
      const cpuMeter = suite.cpuColumn === undefined ? undefined : new CpuMeter({ system, databaseUrl, opensearchUrl: stack.opensearchUrl }, suite.cpuColumn);
      const cpuHeading = cpuMeter === undefined ? '' : ` CPU ms per request (${[...(suite.cpuColumn ?? []), 'OpenSearch', 'Postgres'].join(' · ')} = all) |`;
      lines.push(`| query | p50 ms | p95 ms | p99 ms | req/s | errors | load avg |${cpuHeading} ${suite.answeredByColumn ?? 'index used'} |`, `|---|---|---|---|---|---|---|${cpuMeter === undefined ? '' : '---|'}---|`);
      for (const scenario of scenarios) {
        process.stderr.write(`==> ${suite.name}: ${scenario.name}\n`);
        if (priority !== undefined) await prioritise(priority, system.processes.map((managed) => managed.child.pid), databaseUrl);
        const result = await runLoad({ apiUrl: system.apiUrl, requests: scenario.requests, concurrency, durationMs, warmupMs, ...(cpuMeter === undefined ? {} : { beforeMeasured: () => cpuMeter.start() }) });
        const cpu = cpuMeter === undefined ? undefined : cpuCell(await cpuMeter.perRequest(result.requests));
        // The 1-minute load average after the row: other work on the machine shows up here.
        const load = loadavg()[0]!.toFixed(1);
        const answeredBy = scenario.answeredBy === undefined ? '' : await scenario.answeredBy();
        const line = row(scenario.name, result, load, answeredBy, scenario.target === false ? undefined : (scenario.targetMs ?? 50), cpu);
        process.stderr.write(`${line}\n`);
        if (result.firstError !== undefined) process.stderr.write(`    first error: ${result.firstError}\n`);
        lines.push(line);
      }
      lines.push('');
      if (suite.afterTable !== undefined && values.row === undefined) {
        process.stderr.write(`==> ${suite.name}: further measurements\n`);
        lines.push(...(await suite.afterTable(context)), '');
      }
      if (values.write !== undefined) writeSection(values.write, suite.name, lines.slice(sectionStart));
    }
  } finally {
    await stopRunning();
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** One table row; a p95 at or over the row's target (ms) is marked; `cpu` is the CPU column's cell, when the suite has one. */
function row(name: string, result: LoadResult, load: string, answeredBy: string, targetMs: number | undefined, cpu: string | undefined): string {
  const p95 = targetMs !== undefined && result.p95Ms >= targetMs ? `**${result.p95Ms}** (over ${targetMs})` : String(result.p95Ms);
  return `| ${name} | ${result.p50Ms} | ${p95} | ${result.p99Ms} | ${result.requestsPerSecond} | ${result.errors} | ${load} |${cpu === undefined ? '' : ` ${cpu} |`} ${answeredBy} |`;
}

/**
 * Gives this process, the system's processes and the Postgres backends connected to the
 * benchmark database the nice value `priority` (backends come and go with the pools, so this
 * runs before every row).
 */
async function prioritise(priority: number, pids: readonly (number | undefined)[], databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    for (const pid of [process.pid, ...pids, ...rows.map((row) => row.pid)]) {
      if (pid === undefined) continue;
      try {
        setPriority(pid, priority);
      } catch (error) {
        process.stderr.write(`    cannot set the priority of ${pid}: ${String(error)}\n`);
      }
    }
  } finally {
    await client.end();
  }
}

/** Aborted by the first SIGINT or SIGTERM: what the suites and their child processes watch. */
const interruption = new AbortController();

/**
 * On the first SIGINT or SIGTERM: aborts {@link interruption} (a running child process stops with
 * it), runs `stop`, then exits with 130 (the shell's code for an interrupted command).
 */
function stopOnSignals(stop: () => Promise<void>): void {
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`==> ${signal}: stopping the system\n`);
    interruption.abort();
    void stop()
      .catch((error: unknown) => process.stderr.write(`    could not stop everything: ${String(error)}\n`))
      .finally(() => process.exit(130));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, onSignal);
}

function fail(message: string): never {
  throw new Error(message);
}

main().catch((error: unknown) => {
  // Interrupted: the signal handler stops the system and exits.
  if (interruption.signal.aborted) return;
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});


import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs, promisify } from 'node:util';
import { quantile, repoRoot } from '@inkwell/testing';
import { fuzzApi } from './api-fuzzer.js';
import { audit } from './consistency.audit.js';
import { destroyDedicatedServers } from './dedicated-servers.js';
import { startFaultEnvironment, type FaultEnvironment } from './fault-environment.js';
import { runFault, type FaultReport } from './fault-run.js';
import { fullRunFaults, gatewayTerm, kafkaStop, opensearchStop, postgresCrash, redisFlush, redisStop, serviceKill, type Fault } from './faults.js';
import { byStatus, MixedLoad } from './mixed-load.js';
import { runWebhookFault, WebhookWatch, webhookFaults, webhookTable, type WebhookFault, type WebhookFaultReport } from './webhook-faults.js';
import { createActors, type Actor } from './world.js';

const run = promisify(execFile);

const HELP = `npm run faults -- [options]

Starts a PostgreSQL cluster, a Redis, a Kafka broker and an OpenSearch node of its own (free
ports, data under .cache/faults/, all deleted afterwards, also on Ctrl-C), every service and the
gateway on them, then drives a mixed load through the gateway with real tokens while it injects
one fault at a time, and reports per fault: requests by status, failures beyond the requests in
flight, time to recover, events lost or applied twice, and derived values that disagree with a
recount (docs/reliability.md). Nothing it stops or crashes is shared with anyone.

  --quick               every fault once with short outages (Kafka/OpenSearch 10 s, Redis 5 s),
                        only two of the services killed, no fuzzer unless --fuzz is given
  --webhooks-only       only the webhook steps (the delivery service killed mid-burst, Kafka
                        stopped mid-burst: every acknowledged message delivered?), no fuzzer
  --fault <text>        only the faults whose name contains this text (repeatable; e.g. --fault
                        Kafka --fault stories), each at full length; not with --write
  --kafka-down <s>      Kafka outage (default 60)      --opensearch-down <s>  (default 60)
  --redis-down <s>      Redis outage (default 30)
  --concurrency <n>     requests in flight (default 6)
  --fuzz <n>            generated hostile requests after the faults (default 5000, --quick 0)
  --fuzz-seed <n>       the fuzzer's seed (default: the clock), to replay a reported failure
  --soak <min>          instead of faults: N minutes at 70% of a measured capacity (default 10 when given)
  --build               run the services and the gateway from their production build (npm run
                        build first, then node dist/main.js as the images do) instead of tsx
  --echo                copy every service's and the gateway's log lines to this terminal
  --write <file>        write the report into this Markdown file (e.g. docs/reliability.md): the
                        fault table between its faults:last-run markers, a soak between its
                        faults:soak markers (each added at the end when missing)
`;

function table(reports: readonly FaultReport[]): string {
  const lines = [
    '| fault | requests | by status | 5xx (not 503+Retry-After) | failed beyond in flight | in flight at fault (failed) | recovery s | converged s | events lost | applied twice | disagreeing |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of reports) {
    const statuses = Object.entries(r.byStatus).map(([status, n]) => `${status}: ${n}`).join(', ');
    lines.push(`| ${r.fault} | ${r.requests} | ${statuses} | ${r.serverErrors} | ${r.failedBeyondInFlight}${r.refusedWhileGatewayDown ? ` (+${r.refusedWhileGatewayDown} refused while down)` : ''} | ${r.inFlightAtFault} (${r.inFlightFailed}) | ${r.recoverySeconds.toFixed(1)}${r.recoveredAfterHealSeconds > 0 ? ` (${r.recoveredAfterHealSeconds.toFixed(1)} after healing)` : ''} | ${r.convergeSeconds?.toFixed(1) ?? 'no'} | ${r.eventsLost} | ${r.eventsDoubled} | ${r.disagreeing} |`);
  }
  const deleted = reports.reduce((sum, r) => sum + r.storiesDeleted, 0);
  lines.push('', `Under these faults the load also wrote, published and deleted ${deleted} short-lived stories that the other actors had voted on and shelved: their deletions' events are audited like the rest.`);
  return lines.join('\n');
}

/** Resident set size (KiB) of a pid, from /proc. */
function rssKiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

/** RSS of every process of the system and of the dedicated servers (Postgres: its postmaster only). */
function memory(env: FaultEnvironment): Record<string, number | undefined> {
  const servers = [env.kafka, env.opensearch, env.redis, env.postgres].filter((server) => server !== undefined);
  return Object.fromEntries([...env.system.processes.map((p) => [p.name, rssKiB(p.child.pid)] as const), ...servers.map((server) => [server.kind, rssKiB(server.pid())] as const)]);
}

/** The load average over one minute, sampled every 10 s while a run lasts. */
class LoadSampler {
  private readonly samples: number[] = [loadavg()[0]!];
  private readonly timer = setInterval(() => this.samples.push(loadavg()[0]!), 10_000);

  /** Stops sampling; returns the first sample, the mean and the largest. */
  stop(): { start: number; mean: number; max: number } {
    clearInterval(this.timer);
    return { start: this.samples[0]!, mean: this.samples.reduce((sum, n) => sum + n, 0) / this.samples.length, max: Math.max(...this.samples) };
  }
}

/** The commit the run measured (with `+changes` when the working tree differs from it). */
async function measuredCommit(): Promise<string> {
  const git = async (...args: string[]) => (await run('git', args, { timeout: 30_000 })).stdout.trim();
  try {
    const commit = await git('rev-parse', '--short=9', 'HEAD');
    const changed = await git('status', '--porcelain', '--untracked-files=no');
    return changed === '' ? commit : `${commit} (+ uncommitted changes)`;
  } catch {
    return 'unknown commit';
  }
}

function sum(values: Record<string, number>): number {
  return Object.values(values).reduce((total, n) => total + n, 0);
}

/** 10-minute soak (see HELP): capacity first, then 70% of it, with RSS, outbox backlog and consumer lag every minute. */
async function soak(env: FaultEnvironment, minutes: number, concurrency: number): Promise<string> {
  const actors = await createActors(env.system, 8);
  const probe = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency, seed: 3 });
  probe.start();
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 30_000));
  await probe.stop();
  const capacity = probe.records.length / ((Date.now() - started) / 1000);
  const rate = Math.max(1, Math.round(capacity * 0.7));
  const load = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency, ratePerSecond: rate, seed: 5 });
  // Latency of the requests answered within each minute (from sending to the whole answer).
  let minuteStart = Date.now();
  const latencies = () => {
    const now = Date.now();
    const answered = load.records.filter((record) => record.end > minuteStart && record.end <= now).map((record) => record.end - record.start);
    minuteStart = now;
    answered.sort((a, b) => a - b);
    return { p50: quantile(answered, 0.5), p99: quantile(answered, 0.99) };
  };
  const snapshot = async (minute: number) => ({ minute, rss: memory(env), audit: await audit(env.pool), requests: load.records.length, latency: latencies() });
  const snapshots = [await snapshot(0)];
  load.start();
  for (let minute = 1; minute <= minutes; minute++) {
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    snapshots.push(await snapshot(minute));
  }
  await load.stop();
  const errors = load.records.filter((record) => record.status === 0 || record.status >= 500).length;
  const names = Object.keys(snapshots[0]!.rss);
  const mib = (kib: number | undefined) => (kib === undefined ? '–' : (kib / 1024).toFixed(0));
  const ms = (value: number) => (Number.isNaN(value) ? '–' : String(value));
  return [
    `Soak: ${minutes} min at ${rate} req/s (70% of a measured ${capacity.toFixed(1)} req/s with ${concurrency} in flight), ${load.records.length} requests, ${errors} errors (5xx or no answer); by status: ${JSON.stringify(byStatus(load.records))}.`,
    '',
    `| minute | requests | p50 ms | p99 ms | ${names.map((name) => `RSS ${name} (MiB)`).join(' | ')} | outbox backlog | events not yet applied (consumer lag) |`,
    `|${'---|'.repeat(names.length + 6)}`,
    ...snapshots.map((s) => `| ${s.minute} | ${s.requests} | ${ms(s.latency.p50)} | ${ms(s.latency.p99)} | ${names.map((name) => mib(s.rss[name])).join(' | ')} | ${sum(s.audit.outboxBacklog)} | ${sum(s.audit.unprocessed)} |`),
  ].join('\n');
}

/** The webhook steps' burst: private messages per second, seconds of it before the fault and after healing, and how long delivery may take after it. */
const WEBHOOK_BURST = { ratePerSecond: 20, beforeMs: 5_000, afterMs: 5_000, deliveryTimeoutMs: 180_000 } as const;

/** The webhook steps one after the other (a step that fails is reported and the run goes on); their table. */
async function webhookRun(env: FaultEnvironment, actors: readonly Actor[], steps: readonly WebhookFault[]): Promise<string> {
  const watch = await WebhookWatch.create(env, actors);
  const reports: WebhookFaultReport[] = [];
  const failures: string[] = [];
  try {
    for (const step of steps) {
      process.stderr.write(`[faults] ${step.name}\n`);
      try {
        const report = await runWebhookFault(env, watch, actors, step, WEBHOOK_BURST);
        process.stderr.write(`${JSON.stringify(report)}\n`);
        reports.push(report);
      } catch (error) {
        process.stderr.write(`[faults] ${step.name} failed: ${String(error)}\n`);
        failures.push(`- ${step.name}: ${String(error).split('\n')[0]}`);
      }
    }
  } finally {
    await watch.close();
  }
  const intro = `Webhook deliveries: ${WEBHOOK_BURST.ratePerSecond} private messages/s between the actors, each delivered to one endpoint on loopback (an app every actor authorized with \`read_pms\`), the fault ${WEBHOOK_BURST.beforeMs / 1000} s into the burst, which goes on ${WEBHOOK_BURST.afterMs / 1000} s after healing; every acknowledged message must arrive within ${WEBHOOK_BURST.deliveryTimeoutMs / 1000} s after the burst (at least once: duplicates are counted, not failures).`;
  let body = `${intro}\n\n${webhookTable(reports)}`;
  if (failures.length > 0) body += `\n\nWebhook steps that failed (the run went on):\n\n${failures.join('\n')}`;
  return body;
}

/** Every fault of the run, one after the other under the mixed load, then the webhook steps, then the fuzzer; a fault that does not recover is reported and the run goes on. */
async function faultRun(env: FaultEnvironment, faults: readonly Fault[], webhookSteps: readonly WebhookFault[], concurrency: number, fuzz: { runs: number; seed: number }): Promise<string> {
  const actors = await createActors(env.system, 8);
  const reports: FaultReport[] = [];
  const failures: string[] = [];
  for (const [i, fault] of faults.entries()) {
    process.stderr.write(`[faults] ${fault.name}\n`);
    const load = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency, seed: i + 1 });
    try {
      const report = await runFault(env, load, actors[i % actors.length]!, fault, { requestsBefore: 200, requestsAfter: 200, recoveryTimeoutMs: 180_000, checkSearchIndex: true });
      process.stderr.write(`${JSON.stringify(report)}\n`);
      reports.push(report);
    } catch (error) {
      await load.stop();
      process.stderr.write(`[faults] ${fault.name} failed: ${String(error)}\n`);
      failures.push(`- ${fault.name}: ${String(error).split('\n')[0]}`);
    }
  }
  let body = faults.length === 0 ? '' : table(reports);
  if (failures.length > 0) body += `\n\nFaults the system did not recover from (the run went on):\n\n${failures.join('\n')}`;
  if (webhookSteps.length > 0) body = `${body}\n\n${await webhookRun(env, actors, webhookSteps)}`.trimStart();
  if (fuzz.runs > 0) {
    const knownIds = actors.flatMap((actor) => [actor.id, actor.storyId, actor.chapterId, actor.shelfId]);
    const { runs: fuzzRuns, seed } = fuzz;
    try {
      await fuzzApi({ apiUrl: env.system.apiUrl, pool: env.pool, actor: actors[0]!, knownIds, runs: fuzzRuns, seed });
      body += `\n\nFuzzer: ${fuzzRuns} generated requests (seed ${seed}): no 5xx, no stack trace or SQL in a body, no state change on a rejected request.`;
    } catch (error) {
      // fast-check keeps the failing check's own error as the cause, not in its message.
      const cause = error instanceof Error && error.cause !== undefined ? ` Cause: ${String(error.cause).split('\n').slice(0, 3).join(' ')}` : '';
      body += `\n\nFuzzer: ${fuzzRuns} generated requests (seed ${seed}) FAILED: ${String(error).split('\n').slice(0, 6).join(' ')}${cause}`;
    }
  }
  const examples = reports.flatMap((report) => report.examples.map((example) => `- ${report.fault}: ${example.check} ${example.id}: derived ${example.derived}, recount ${example.recount}`));
  if (examples.length > 0) body += `\n\nDisagreements seen:\n\n${examples.join('\n')}`;
  const failed = reports.flatMap((report) => report.failedExamples.map((example) => `- ${report.fault}: ${example.op}, ${example.outcome}, sent ${example.msAfterFault} ms after the fault`));
  if (failed.length > 0) body += `\n\nRequests failed beyond those in flight (at most 5 per fault):\n\n${failed.join('\n')}`;
  return body;
}

/**
 * Writes `text` into the Markdown `file` between `<!-- faults:<section> -->` and
 * `<!-- /faults:<section> -->` (from the first marker to the end when the closing one is missing;
 * both added at the end when the first is missing), so the fault table and the soak keep each other.
 */
function writeSection(file: string, section: string, text: string): void {
  const open = `<!-- faults:${section} -->`;
  const close = `<!-- /faults:${section} -->`;
  const current = readFileSync(file, 'utf8');
  const at = current.indexOf(open);
  if (at < 0) {
    writeFileSync(file, `${current.trimEnd()}\n\n${open}\n${text}\n${close}\n`);
    return;
  }
  const end = current.indexOf(close, at);
  const rest = end < 0 ? '\n' : current.slice(end + close.length);
  writeFileSync(file, `${current.slice(0, at + open.length)}\n${text}\n${close}${rest}`);
}

/** `npm run faults`: see HELP. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'webhooks-only': { type: 'boolean', default: false },
      fault: { type: 'string', multiple: true },
      'kafka-down': { type: 'string', default: '60' },
      'opensearch-down': { type: 'string', default: '60' },
      'redis-down': { type: 'string', default: '30' },
      concurrency: { type: 'string', default: '6' },
      fuzz: { type: 'string' },
      'fuzz-seed': { type: 'string' },
      soak: { type: 'string' },
      echo: { type: 'boolean', default: false },
      build: { type: 'boolean', default: false },
      write: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const concurrency = Number(values.concurrency);
  const webhooksOnly = values['webhooks-only'];
  // The report section holds whole runs: a part of one would replace the last full table.
  if ((webhooksOnly || values.fault !== undefined) && values.write !== undefined) throw new Error('--webhooks-only and --fault are checks: not with --write');
  const fuzzRuns = Number(values.fuzz ?? (values.quick || webhooksOnly || values.fault !== undefined ? 0 : 5000));
  const kafkaDownMs = values.quick ? 10_000 : Number(values['kafka-down']) * 1000;
  const everyFault = values.quick
    ? [kafkaStop(kafkaDownMs), serviceKill('stories'), serviceKill('bookshelves'), gatewayTerm(), gatewayTerm({ behindReadinessProbe: true }), redisFlush(), redisStop(5_000), opensearchStop(10_000), postgresCrash()]
    : fullRunFaults({ kafkaDownMs, opensearchDownMs: Number(values['opensearch-down']) * 1000, redisDownMs: Number(values['redis-down']) * 1000 });
  const chosen = (name: string) => values.fault === undefined || values.fault.some((text) => name.toLowerCase().includes(text.toLowerCase()));
  const faults = webhooksOnly ? [] : everyFault.filter((fault) => chosen(fault.name));
  const webhookSteps = webhookFaults(kafkaDownMs).filter((step) => chosen(step.name));
  const started = new Date();
  const commit = await measuredCommit();
  const loadSampler = new LoadSampler();
  stopOnSignals();
  if (values.build) await run('npm', ['run', 'build'], { cwd: repoRoot(), maxBuffer: 64 * 1024 * 1024 });
  environment = await startFaultEnvironment({ name: values.soak !== undefined ? 'soak' : 'run', dedicatedOpenSearch: true, dedicatedStores: true, echo: values.echo, build: values.build });
  let body: string;
  try {
    body = values.soak !== undefined ? await soak(environment, Number(values.soak || 10), concurrency) : await faultRun(environment, faults, webhookSteps, concurrency, { runs: fuzzRuns, seed: Number(values['fuzz-seed'] ?? Date.now() % 2_147_483_647) });
  } finally {
    await environment.stop();
    environment = undefined;
  }
  const load = loadSampler.stop();
  const what = values.soak !== undefined ? 'Soak' : `${values.quick ? 'Quick run' : 'Full run'}${webhooksOnly ? ' (webhook steps only)' : ''}`;
  const how = values.build ? 'the production build (dist/)' : 'TypeScript under tsx';
  const heading = `${what} of ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC at commit ${commit} on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB; load average ${load.start.toFixed(1)} at start, ${load.mean.toFixed(1)} on average, ${load.max.toFixed(1)} at most (the machine is shared); processes run from ${how}.`;
  const report = `${heading}\n\n${body}\n`;
  process.stdout.write(report);
  if (values.write !== undefined) writeSection(values.write, values.soak !== undefined ? 'soak' : 'last-run', report.trimEnd());
}

/** The environment of the run while it exists (stopped and deleted on Ctrl-C). */
let environment: FaultEnvironment | undefined;

/** Ctrl-C or SIGTERM: stops the system and deletes every dedicated server and its data before exiting. */
function stopOnSignals(): void {
  const stop = async (signal: NodeJS.Signals) => {
    process.stderr.write(`[faults] ${signal}: stopping the system and deleting the dedicated servers\n`);
    await environment?.stop().catch(() => {});
    await destroyDedicatedServers();
    process.exit(130);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, (received) => void stop(received));
}

await main();
process.exit(0);

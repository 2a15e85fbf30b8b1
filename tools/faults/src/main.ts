import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { fuzzApi } from './api-fuzzer.js';
import { audit } from './consistency.audit.js';
import { startFaultEnvironment, type FaultEnvironment } from './fault-environment.js';
import { runFault, type FaultReport } from './fault-run.js';
import { fullRunFaults, kafkaStop, opensearchStop, redisFlush, serviceKill, gatewayTerm } from './faults.js';
import { MixedLoad } from './mixed-load.js';
import { createActors } from './world.js';

const HELP = `npm run faults -- [options]

Starts a Kafka broker and an OpenSearch node of its own (free ports, data under .cache/faults/),
every service and the gateway on the database inkwell_faults_run, then drives a mixed load
through the gateway with real tokens while it injects one fault at a time, and reports per fault:
requests by status, failures beyond the requests in flight, time to recover, events lost or
applied twice, and derived values that disagree with a recount (docs/reliability.md).

  --quick               short outages (Kafka/OpenSearch 10 s, Redis 5 s) and only the faults that
                        disturb nobody else (no Redis stop, no Postgres restart)
  --kafka-down <s>      Kafka outage (default 60)      --opensearch-down <s>  (default 60)
  --redis-down <s>      Redis outage (default 30; SHARED Redis: full run only)
  --concurrency <n>     requests in flight (default 6)
  --fuzz <n>            generated hostile requests after the faults (default 5000; 0: none)
  --soak <min>          instead of faults: N minutes at 70% of a measured capacity (default 10 when given)
  --write <file>        write the report into this Markdown file (e.g. docs/reliability.md)

The full run stops the machine's shared Redis for --redis-down seconds and restarts the shared
PostgreSQL cluster (last): everyone on the machine notices. Redis flushes touch only this
system's key prefix.
`;

function table(reports: readonly FaultReport[]): string {
  const lines = [
    '| fault | requests | by status | 5xx (not 503+Retry-After) | failed beyond in flight | in flight at fault (failed) | recovery s | converged s | events lost | applied twice | disagreeing |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of reports) {
    const statuses = Object.entries(r.byStatus).map(([status, n]) => `${status}: ${n}`).join(', ');
    lines.push(`| ${r.fault} | ${r.requests} | ${statuses} | ${r.serverErrors} | ${r.failedBeyondInFlight}${r.refusedWhileGatewayDown ? ` (+${r.refusedWhileGatewayDown} refused while down)` : ''} | ${r.inFlightAtFault} (${r.inFlightFailed}) | ${r.recoverySeconds.toFixed(1)} | ${r.convergeSeconds?.toFixed(1) ?? 'no'} | ${r.eventsLost} | ${r.eventsDoubled} | ${r.disagreeing} |`);
  }
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

function memory(env: FaultEnvironment): Record<string, number | undefined> {
  return Object.fromEntries([...env.system.processes.map((p) => [p.name, rssKiB(p.child.pid)] as const), ['kafka', rssKiB(env.kafka.pid())], ['opensearch', rssKiB(env.opensearch?.pid())]]);
}

async function soak(env: FaultEnvironment, minutes: number, concurrency: number): Promise<string> {
  const actors = await createActors(env.system, 8);
  const probe = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency, seed: 3 });
  probe.start();
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 30_000));
  await probe.stop();
  const capacity = probe.records.length / ((Date.now() - started) / 1000);
  const rate = Math.max(1, Math.round(capacity * 0.7));
  const before = { rss: memory(env), audit: await audit(env.pool) };
  const load = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency, ratePerSecond: rate, seed: 5 });
  load.start();
  await new Promise((resolve) => setTimeout(resolve, minutes * 60_000));
  const after = { rss: memory(env), audit: await audit(env.pool) };
  await load.stop();
  const errors = load.records.filter((record) => record.status === 0 || record.status >= 500).length;
  return [
    `Soak: ${minutes} min at ${rate} req/s (70% of a measured ${capacity.toFixed(1)} req/s), ${load.records.length} requests, ${errors} errors (5xx or no answer).`,
    '',
    '| | start | end |',
    '|---|---|---|',
    ...Object.keys(before.rss).map((name) => `| RSS ${name} (MiB) | ${((before.rss[name] ?? 0) / 1024).toFixed(0)} | ${((after.rss[name] ?? 0) / 1024).toFixed(0)} |`),
    `| outbox backlog | ${JSON.stringify(before.audit.outboxBacklog)} | ${JSON.stringify(after.audit.outboxBacklog)} |`,
    `| events not yet applied (consumer lag) | ${JSON.stringify(before.audit.unprocessed)} | ${JSON.stringify(after.audit.unprocessed)} |`,
  ].join('\n');
}

/** `npm run faults`: see HELP. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'kafka-down': { type: 'string', default: '60' },
      'opensearch-down': { type: 'string', default: '60' },
      'redis-down': { type: 'string', default: '30' },
      concurrency: { type: 'string', default: '6' },
      fuzz: { type: 'string', default: '5000' },
      soak: { type: 'string' },
      write: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const concurrency = Number(values.concurrency);
  const env = await startFaultEnvironment({ name: 'run', dedicatedOpenSearch: true });
  const started = new Date();
  const load1 = loadavg()[0]!.toFixed(1);
  let body: string;
  try {
    if (values.soak !== undefined) {
      body = await soak(env, Number(values.soak || 10), concurrency);
    } else {
      const actors = await createActors(env.system, 8);
      const faults = values.quick
        ? [kafkaStop(10_000), serviceKill('stories'), serviceKill('bookshelves'), gatewayTerm(), redisFlush(), opensearchStop(10_000)]
        : fullRunFaults({ kafkaDownMs: Number(values['kafka-down']) * 1000, opensearchDownMs: Number(values['opensearch-down']) * 1000, redisDownMs: Number(values['redis-down']) * 1000 });
      const reports: FaultReport[] = [];
      for (const [i, fault] of faults.entries()) {
        process.stderr.write(`[faults] ${fault.name}\n`);
        const load = new MixedLoad({ apiUrl: env.system.apiUrl, actors, concurrency, seed: i + 1 });
        const report = await runFault(env, load, actors[i % actors.length]!, fault, { requestsBefore: 200, requestsAfter: 200, recoveryTimeoutMs: 180_000, checkSearchIndex: true });
        process.stderr.write(`${JSON.stringify(report)}\n`);
        reports.push(report);
      }
      body = table(reports);
      const fuzzRuns = Number(values.fuzz);
      if (fuzzRuns > 0) {
        const knownIds = actors.flatMap((actor) => [actor.id, actor.storyId, actor.chapterId, actor.shelfId]);
        const seed = Date.now() % 2_147_483_647;
        await fuzzApi({ apiUrl: env.system.apiUrl, pool: env.pool, actor: actors[0]!, knownIds, runs: fuzzRuns, seed });
        body += `\n\nFuzzer: ${fuzzRuns} generated requests (seed ${seed}): no 5xx, no stack trace or SQL in a body, no state change on a rejected request.`;
      }
      const examples = reports.flatMap((report) => report.examples.map((example) => `- ${report.fault}: ${example.check} ${example.id}: derived ${example.derived}, recount ${example.recount}`));
      if (examples.length > 0) body += `\n\nDisagreements seen:\n\n${examples.join('\n')}`;
    }
  } finally {
    await env.stop();
  }
  const heading = `Run of ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${load1} at start.`;
  const report = `${heading}\n\n${body}\n`;
  process.stdout.write(report);
  if (values.write !== undefined) {
    const file = values.write;
    const marker = '<!-- faults:last-run -->';
    const current = readFileSync(file, 'utf8');
    const at = current.indexOf(marker);
    writeFileSync(file, at < 0 ? `${current}\n${marker}\n${report}` : `${current.slice(0, at + marker.length)}\n${report}`);
  }
}

await main();
process.exit(0);

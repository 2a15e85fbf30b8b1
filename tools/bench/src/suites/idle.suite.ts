import { setTimeout as sleep } from 'node:timers/promises';
import { cpus, loadavg } from 'node:os';
import type { BenchContext, Suite } from '../suite.js';
import { cpuSeconds } from '../process-cpu.js';
import { round1 } from '../wrk.runner.js';

/** Seconds the system is left alone before the window: consumers join their groups, first checks and timers settle. */
const SETTLE_SECONDS = 20;
/** The measured window. */
const WINDOW_SECONDS = 60;
/** What issue 29 measured for an idle service before the idle work (CPU ms a second), for comparison. */
const IDLE_BEFORE_MS_PER_SECOND = 9;

/**
 * What the system costs when nobody uses it (docs/reliability.md, "How recovery is built", idle
 * cost): every service and the gateway as deployed (the gateway checking each service's health
 * every second, every consumer polling its topics, every outbox relay listening), no requests at
 * all. CPU milliseconds per second of each process (user + system, /proc/<pid>/stat) over one
 * window after a settling time. Needs no data: any benchmark database does.
 */
export const idleSuite: Suite = {
  name: 'idle',
  dataSet: 'no requests: every service and the gateway left alone for a minute (any database)',

  async prepare() {},

  async report(context: BenchContext) {
    await sleep(SETTLE_SECONDS * 1000);
    const processes = context.system.processes.map((running) => ({ name: running.name, pid: running.child.pid }));
    const readCpu = () => processes.map(({ pid }) => (pid === undefined ? 0 : cpuSeconds(pid)));
    const loadBefore = loadavg()[0] as number;
    const before = readCpu();
    await sleep(WINDOW_SECONDS * 1000);
    const after = readCpu();
    const loadAfter = loadavg()[0] as number;
    const msPerSecond = processes.map((_, i) => ((after[i]! - before[i]!) * 1000) / WINDOW_SECONDS);
    const rows = processes.map(({ name }, i) => `| ${name} | ${round1(msPerSecond[i]!)} |`);
    return [
      `Date ${new Date().toISOString().slice(0, 10)}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}); every service, the gateway, Postgres, Redis, Kafka and OpenSearch on it, no requests. ${SETTLE_SECONDS} s to settle after the start, then a window of ${WINDOW_SECONDS} s. 1-minute load average ${round1(loadBefore)} before the window, ${round1(loadAfter)} after it.`,
      '',
      '| process | CPU ms per second |',
      '|---|---|',
      ...rows,
      `| all of them | ${round1(msPerSecond.reduce((sum, value) => sum + value, 0))} |`,
      '',
      `Before the idle work an idle service used about ${IDLE_BEFORE_MS_PER_SECOND} ms a second (issue 29); CPU milliseconds depend on the machine's speed, so compare runs of one machine.`,
    ];
  },
};

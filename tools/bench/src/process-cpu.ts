import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { RunningSystem } from '@inkwell/testing';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux). */
const CLOCK_TICKS = 100;

/** How long the OpenSearch node may take to say how much CPU it has used. */
const NODE_STATS_TIMEOUT_MS = 5_000;

/** CPU seconds (user + system) process `pid` has used so far, from /proc/<pid>/stat; 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** CPU seconds used so far, per process (pid or name) of one measured part of the system. */
type CpuReading = ReadonlyMap<string, number>;

/** One measured part of the system (a service, the search node, the database's backends) and how to read its CPU so far. */
interface CpuSource {
  readonly label: string;
  read(): Promise<CpuReading>;
}

/** Where the measured processes are: the running system, the benchmark database and the OpenSearch node. */
export interface CpuTargets {
  readonly system: RunningSystem;
  readonly databaseUrl: string;
  readonly opensearchUrl: string;
}

/** CPU milliseconds per request of each measured part, in the order measured, and their sum. */
export interface CpuPerRequest {
  readonly parts: ReadonlyArray<{ readonly label: string; readonly ms: number }>;
  readonly totalMs: number;
}

/**
 * Measures the CPU each part of the system spends per request over a measured window: every
 * service named (its process, from /proc), the OpenSearch node (its own count of process CPU,
 * `_nodes/_local/stats/process`, so it works wherever the node runs) and Postgres (the backends
 * connected to the benchmark database, from /proc; a backend that ends during the window takes
 * its CPU with it). `start()` before the window, `perRequest(requests)` right after it.
 */
export class CpuMeter {
  private readonly sources: CpuSource[];
  private before: CpuReading[] | undefined;

  constructor(targets: CpuTargets, services: readonly string[]) {
    this.sources = [
      ...services.map((name) => serviceSource(targets.system, name)),
      { label: 'OpenSearch', read: () => openSearchCpu(targets.opensearchUrl) },
      { label: 'Postgres', read: () => postgresBackendsCpu(targets.databaseUrl) },
    ];
  }

  /** Takes the reading the window starts from. */
  async start(): Promise<void> {
    this.before = await Promise.all(this.sources.map((source) => source.read()));
  }

  /** CPU per request of each part since {@link start}, `requests` having been answered meanwhile. */
  async perRequest(requests: number): Promise<CpuPerRequest> {
    const before = this.before;
    if (before === undefined) throw new Error('CpuMeter.perRequest before start');
    const after = await Promise.all(this.sources.map((source) => source.read()));
    const parts = this.sources.map((source, i) => {
      let seconds = 0;
      for (const [key, value] of after[i]!) seconds += value - (before[i]!.get(key) ?? 0);
      return { label: source.label, ms: requests === 0 ? 0 : (Math.max(0, seconds) * 1000) / requests };
    });
    return { parts, totalMs: parts.reduce((sum, part) => sum + part.ms, 0) };
  }
}

/** A table cell of {@link CpuPerRequest}: `gateway 1.4 · stories 1.1 · OpenSearch 1.3 · Postgres 0.4 = 4.2` (ms). */
export function cpuCell(cpu: CpuPerRequest): string {
  const ms = (value: number) => (Math.round(value * 100) / 100).toFixed(2);
  return `${cpu.parts.map((part) => `${part.label} ${ms(part.ms)}`).join(' · ')} = ${ms(cpu.totalMs)}`;
}

/** The process of service `name` of the system (read by pid at each reading: a restarted service is a new process). */
function serviceSource(system: RunningSystem, name: string): CpuSource {
  return {
    label: name,
    read: async () => {
      const pid = system.processes.find((running) => running.name === name)?.child.pid;
      if (pid === undefined) throw new Error(`no running process named ${name}`);
      return new Map([[String(pid), cpuSeconds(pid)]]);
    },
  };
}

/** The CPU seconds the OpenSearch node at `url` has used so far, by its own count. */
async function openSearchCpu(url: string): Promise<CpuReading> {
  const response = await fetch(`${url}/_nodes/_local/stats/process?filter_path=nodes.*.process.cpu.total_in_millis`, { signal: AbortSignal.timeout(NODE_STATS_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`OpenSearch node stats: ${response.status}`);
  const body = (await response.json()) as { nodes?: Record<string, { process?: { cpu?: { total_in_millis?: number } } }> };
  return new Map(Object.entries(body.nodes ?? {}).map(([node, stats]) => [node, (stats.process?.cpu?.total_in_millis ?? 0) / 1000]));
}

/** The CPU seconds each backend connected to the database of `databaseUrl` (but the one asking) has used so far. */
async function postgresBackendsCpu(databaseUrl: string): Promise<CpuReading> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return new Map(rows.map((row) => [String(row.pid), cpuSeconds(row.pid)]));
  } finally {
    await client.end();
  }
}

import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@inkwell/testing';

const run = promisify(execFile);

/** What one wrk run measured. */
export interface WrkResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers other than 2xx/3xx, and socket errors. */
  readonly errors: number;
}

/** Options of {@link runWrk}. */
export interface WrkOptions {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly durationSeconds: number;
  /** wrk threads (default 1: the load generator shares the machine with what it measures). */
  readonly threads?: number;
}

/** Installs Debian's wrk where it is missing (tools/ensure-wrk.sh): the `prepare` step of the suites that use {@link runWrk}. */
export function ensureWrk(): void {
  execFileSync('bash', [join(repoRoot(), 'tools/ensure-wrk.sh')], { stdio: 'inherit' });
}

/** The median of `values` (the mean of the middle two for an even count): what the wrk suites report over their rounds. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** `value` rounded to one decimal, as the benchmark tables print it. */
export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * Drives `url` with wrk (Debian's package, see tools/ensure-wrk.sh): a closed loop of
 * `connections` keep-alive connections for `durationSeconds`, with latency percentiles
 * (`--latency`). wrk is C with epoll, so it takes far less CPU than a Node load generator would
 * from the processes it measures.
 */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const args = ['-t', String(options.threads ?? 1), '-c', String(options.connections), '-d', `${options.durationSeconds}s`, '--latency'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  args.push(options.url);
  const { stdout } = await run('wrk', args, { maxBuffer: 1 << 20 });
  return parseWrkOutput(stdout);
}

/** Parses wrk's report: `Requests/sec`, the 50% and 99% lines of the latency distribution, and error counts. */
export function parseWrkOutput(text: string): WrkResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (rps === null) throw new Error(`not a wrk report:\n${text}`);
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0) + socketErrors(text);
  return { requestsPerSecond: Number(rps[1]), p50Ms: percentile(text, '50%'), p99Ms: percentile(text, '99%'), errors };
}

function percentile(text: string, label: string): number {
  const match = new RegExp(`^\\s+${label}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(text);
  if (match === null) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function socketErrors(text: string): number {
  const match = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return match === null ? 0 : match.slice(1).reduce((sum, n) => sum + Number(n), 0);
}

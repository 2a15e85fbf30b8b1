import type { RunningSystem } from '@inkwell/testing';
import type { BenchRequest } from './load.runner.js';

/** How a suite prepares its data. */
export interface PrepareOptions {
  /**
   * Share of the suite's documented data set to hold (1 = all of it; e.g. 0.01 for a quick check
   * of a fresh machine). Data already there counts: a smaller scale never removes any.
   */
  readonly scale: number;
  /** Aborted on Ctrl-C or SIGTERM: a child process the preparation runs is stopped with it. */
  readonly signal?: AbortSignal;
}

/** What a suite gets to build its scenarios: the running system and the benchmark database. */
export interface BenchContext {
  /** The data scale the suites were prepared at (PrepareOptions). */
  readonly scale: number;
  readonly system: RunningSystem;
  /** URL of the benchmark database (for picking realistic targets and explaining queries). */
  readonly databaseUrl: string;
  /**
   * The measured window `--duration` asked for (ms), when it was given: a suite that measures over
   * a window of its own (webhooks: 60 s) uses it instead, for a short check.
   */
  readonly durationMs?: number;
  /** Mints a personal access token of `userId` with `scopes` through the users service. */
  mintToken(userId: string, scopes: readonly string[]): Promise<string>;
  /** Aborted on Ctrl-C or SIGTERM: a child process a suite runs is stopped with it. */
  readonly signal?: AbortSignal;
}

/** One row of the report: a kind of request, driven with many concrete requests. */
export interface Scenario {
  /** The row label, e.g. "inbox (100 newest received)". */
  readonly name: string;
  /** Concrete requests (different users, words...), cycled through by the load generator. */
  readonly requests: readonly BenchRequest[];
  /**
   * What answered the row, for the suite's last column: the Postgres indexes the backing query
   * uses (from EXPLAIN of a representative request), or the search engine's own time for the
   * row's searches. Called after the row is measured.
   */
  readonly answeredBy?: () => Promise<string>;
  /** Informational rows are reported but carry no latency target. */
  readonly target?: boolean;
  /** The row's p95 target in ms (default 50); a p95 at or over it is marked in the table. */
  readonly targetMs?: number;
}

/**
 * A set of scenarios of one area (messages, stories, ...), with the data it needs. A suite either
 * lists `scenarios` (the runner measures each and prints the standard table) or measures in its
 * own way and returns its Markdown with `report` (e.g. a comparison of two variants).
 */
export interface Suite {
  readonly name: string;
  /** Describes the data set, for the report ("1,000,000 messages between 10,000 users"). */
  readonly dataSet: string;
  /**
   * Settings of the system the suite measures, over the runner's (environment variables of the
   * services and the gateway, e.g. a cache turned off); suites with other settings than the last
   * get a system of their own.
   */
  readonly systemEnv?: Readonly<Record<string, string>>;
  /**
   * Makes sure the benchmark database holds the suite's data: brings the schemas it reads up to
   * date first (an empty database works), then seeds what is missing.
   */
  prepare(databaseUrl: string, options: PrepareOptions): Promise<void>;
  scenarios?(context: BenchContext): Promise<Scenario[]>;
  /**
   * Services (process names of the system, e.g. `gateway`, `stories`) whose CPU per request the
   * table shows in a column of its own, with the OpenSearch node's and that of the benchmark
   * database's Postgres backends, measured over each row's measured window (src/process-cpu.ts).
   */
  readonly cpuColumn?: readonly string[];
  /** The heading of the table's last column (default "index used"): what each row's `answeredBy` says. */
  readonly answeredByColumn?: string;
  /**
   * Measurements of the suite that are not rows of latency under load (e.g. how long a rebuild
   * takes), run after the table: Markdown lines printed under it.
   */
  afterTable?(context: BenchContext): Promise<string[]>;
  /** The suite's own measurement: Markdown lines printed under its heading instead of the table. */
  report?(context: BenchContext): Promise<string[]>;
}

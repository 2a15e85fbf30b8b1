import { eventually } from '@inkwell/testing';
import { audit, auditSearchIndex, drained, type AuditResult, type Disagreement } from './consistency.audit.js';
import type { FaultEnvironment } from './fault-environment.js';
import { probeSucceeds, type Fault } from './faults.js';
import { byStatus, PASSING_STORY_DELETED, unacceptable, type MixedLoad } from './mixed-load.js';
import type { Actor } from './world.js';

/** What one fault did to the system, as docs/reliability.md reports it. */
export interface FaultReport {
  readonly fault: string;
  readonly requests: number;
  /** Requests of the fault's window by status (or network error). */
  readonly byStatus: Record<string, number>;
  /** 5xx other than 503 with Retry-After, among all requests of the window. */
  readonly serverErrors: number;
  /** Requests in flight when the fault struck. */
  readonly inFlightAtFault: number;
  /** Of those, how many ended badly (5xx other than 503 + Retry-After, or no answer). */
  readonly inFlightFailed: number;
  /** Requests sent after the fault that ended badly (refused connections while the gateway is down excepted). */
  readonly failedBeyondInFlight: number;
  /** Connections refused while the (single) gateway was down. */
  readonly refusedWhileGatewayDown: number;
  /** Seconds from the fault until the affected routes answered 2xx for good (outage included; 0 when they never failed). */
  readonly recoverySeconds: number;
  /**
   * Seconds from healing (the server back and answering, the process restarted and ready) until
   * the affected routes answered 2xx for good: what is left of the recovery once the fault is gone.
   */
  readonly recoveredAfterHealSeconds: number;
  /** Seconds from healing until every event was applied and every derived value equalled its recount. */
  readonly convergeSeconds: number | undefined;
  /** Events never applied by a consumer, counts below their recount, and acknowledged writes missing. */
  readonly eventsLost: number;
  /** Counts above their recount: events applied more than once. */
  readonly eventsDoubled: number;
  /** Derived values (and copies, and the search index) that disagree with a recount after recovery. */
  readonly disagreeing: number;
  /** Stories the load wrote, published, let others use and deleted in the fault's window (their deletions' events are audited too). */
  readonly storiesDeleted: number;
  /** A few of the disagreements, for the report. */
  readonly examples: readonly Disagreement[];
  /** A few of the requests failed beyond those in flight: operation, outcome, milliseconds after the fault. */
  readonly failedExamples: readonly { op: string; outcome: string; msAfterFault: number }[];
}

/** Options of {@link runFault}. */
export interface FaultRunOptions {
  /** Load before the fault (requests made). */
  readonly requestsBefore: number;
  /** Load after recovery (requests made). */
  readonly requestsAfter: number;
  /** How long recovery and convergence may take before the fault counts as not recovered. */
  readonly recoveryTimeoutMs: number;
  /** Check the search index too (it must be reachable). */
  readonly checkSearchIndex: boolean;
}

/** Rows the API acknowledged (201) that no longer exist. */
async function acknowledgedMissing(env: FaultEnvironment, load: MixedLoad): Promise<number> {
  const ids = (kind: string) => load.acknowledged.filter((write) => write.kind === kind).map((write) => write.id);
  const count = async (table: string, wanted: string[]) => {
    const { rows } = await env.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE id = ANY($1::bigint[])`, [wanted]);
    return wanted.length - Number(rows[0]?.n ?? 0);
  };
  return (await count('stories.comments', ids('comment'))) + (await count('messaging.messages', ids('private_message')));
}

/** Everything waiting was applied and every derived value equals its recount (search index included when asked). */
async function settle(env: FaultEnvironment, options: FaultRunOptions): Promise<{ result: AuditResult; search: Disagreement[] }> {
  const result = await audit(env.pool);
  const search = options.checkSearchIndex ? await auditSearchIndex(env.pool, env.opensearchUrl, env.system.opensearchIndexPrefix) : [];
  return { result, search };
}

/** Waits (bounded) until the load has made `count` more requests. */
async function loadFor(load: MixedLoad, count: number, timeoutMs: number): Promise<void> {
  const target = load.records.length + count;
  await eventually(() => load.records.length >= target, { timeoutMs, intervalMs: 100, what: `the load made ${count} requests` });
}

/**
 * How often the load's stand-in for a load balancer asks the gateway's `/readyz`: well inside the
 * gateway's SHUTDOWN_DELAY_MS (2 s), during which a draining gateway still answers everything.
 */
const READINESS_PROBE_MS = 250;

/**
 * What a load balancer knows of the gateway at `gatewayUrl`: whether its `/readyz` last answered
 * 200 (asked every {@link READINESS_PROBE_MS}; no answer within that time is not ready). Ready
 * until the first answer says otherwise. `stop()` ends the probing.
 */
function readinessProbe(gatewayUrl: string): { ready(): boolean; stop(): void } {
  let ready = true;
  let stopped = false;
  const ask = async (): Promise<void> => {
    while (!stopped) {
      const askedAt = Date.now();
      try {
        const response = await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(READINESS_PROBE_MS) });
        await response.arrayBuffer();
        ready = response.status === 200;
      } catch {
        ready = false;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, askedAt + READINESS_PROBE_MS - Date.now())));
    }
  };
  void ask();
  return {
    ready: () => ready,
    stop: () => {
      stopped = true;
    },
  };
}

/** Where the injection and healing of a fault stand, for {@link recoveredSince}. */
interface HealingState {
  healedAt: number | undefined;
  /** Injecting or healing failed: the watch ends. */
  failed: boolean;
}

/**
 * Polls `succeeds` (the fault's probe) from the moment of the fault, while the fault is injected,
 * held and healed, until a probe sent after healing succeeds; returns since when the probe has
 * answered 2xx without a failure (so a route the fault never broke recovers in 0 s, and the time
 * the harness itself spends stopping and starting a server does not count as an outage of the API).
 * Bounded: fails `timeoutMs` after healing.
 */
async function recoveredSince(succeeds: () => Promise<boolean>, healing: HealingState, timeoutMs: number, what: string): Promise<number> {
  let goodSince: number | undefined;
  for (;;) {
    const sentAt = Date.now();
    const ok = await succeeds();
    goodSince = ok ? (goodSince ?? sentAt) : undefined;
    if (healing.failed) return Number.NaN;
    if (healing.healedAt !== undefined) {
      if (ok && goodSince !== undefined && sentAt >= healing.healedAt) return goodSince;
      if (Date.now() - healing.healedAt > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}: the affected routes answer again`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Runs one fault under the mixed load: load for a while, inject, stay broken for the fault's
 * duration, heal, wait until the affected routes answer 2xx, load a while more, stop the load,
 * then wait until every event is applied and every derived value equals its recount (bounded),
 * and report. The load is left stopped. With `fault.behindReadinessProbe` the load holds new
 * requests while the gateway's `/readyz` does not answer 200 ({@link readinessProbe}).
 */
export async function runFault(env: FaultEnvironment, load: MixedLoad, actor: Actor, fault: Fault, options: FaultRunOptions): Promise<FaultReport> {
  const balancer = fault.behindReadinessProbe === true ? readinessProbe(env.system.gatewayUrl) : undefined;
  load.holdWhile(balancer === undefined ? undefined : () => !balancer.ready());
  try {
    return await faultUnderLoad(env, load, actor, fault, options);
  } finally {
    balancer?.stop();
    load.holdWhile(undefined);
  }
}

async function faultUnderLoad(env: FaultEnvironment, load: MixedLoad, actor: Actor, fault: Fault, options: FaultRunOptions): Promise<FaultReport> {
  const windowStart = Date.now();
  load.start();
  await loadFor(load, options.requestsBefore, options.recoveryTimeoutMs);
  const inFlight = load.inFlightNow();
  const faultAt = Date.now();
  const healing: HealingState = { healedAt: undefined, failed: false };
  const recovery = recoveredSince(() => probeSucceeds(env, fault.probe(actor)), healing, options.recoveryTimeoutMs, fault.name);
  try {
    await fault.inject(env);
    if (fault.downMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.downMs));
    await fault.heal(env);
  } catch (error) {
    healing.failed = true;
    throw error;
  }
  const healedAt = Date.now();
  healing.healedAt = healedAt;
  const recoveredAt = Math.max(faultAt, await recovery);
  await loadFor(load, options.requestsAfter, options.recoveryTimeoutMs);
  await load.stop();
  const windowEnd = Date.now();

  let settled = await settle(env, options);
  let convergeSeconds: number | undefined;
  try {
    await eventually(
      async () => {
        settled = await settle(env, options);
        return drained(settled.result) && settled.result.disagreements.length === 0 && settled.search.length === 0;
      },
      { timeoutMs: options.recoveryTimeoutMs, intervalMs: 250, what: 'events applied and derived values equal their recount' },
    );
    convergeSeconds = (Date.now() - healedAt) / 1000;
  } catch {
    convergeSeconds = undefined;
  }

  const records = load.records.filter((record) => record.start >= windowStart && record.start <= windowEnd);
  const refused = (record: (typeof records)[number]) => fault.gatewayDown === true && record.error === 'ECONNREFUSED' && record.start >= faultAt && record.start <= recoveredAt;
  const atFault = records.filter((record) => record.start < faultAt && record.end >= faultAt);
  const unprocessed = Object.values(settled.result.unprocessed).reduce((sum, n) => sum + n, 0);
  const disagreements = [...settled.result.disagreements, ...settled.search];
  const failedBeyond = records.filter((record) => record.start >= faultAt && unacceptable(record) && !refused(record));
  return {
    fault: fault.name,
    requests: records.length,
    byStatus: byStatus(records),
    serverErrors: records.filter((record) => record.status >= 500 && unacceptable(record)).length,
    inFlightAtFault: inFlight.length,
    inFlightFailed: atFault.filter(unacceptable).length,
    failedBeyondInFlight: failedBeyond.length,
    refusedWhileGatewayDown: records.filter(refused).length,
    recoverySeconds: (recoveredAt - faultAt) / 1000,
    recoveredAfterHealSeconds: Math.max(0, recoveredAt - healedAt) / 1000,
    convergeSeconds,
    eventsLost: unprocessed + settled.result.countedTooFew + (await acknowledgedMissing(env, load)),
    eventsDoubled: settled.result.countedTwice,
    disagreeing: disagreements.length,
    storiesDeleted: records.filter((record) => record.op === PASSING_STORY_DELETED && record.status === 204).length,
    examples: disagreements.slice(0, 5),
    failedExamples: failedBeyond.slice(0, 5).map((record) => ({ op: record.op, outcome: record.error ?? String(record.status), msAfterFault: record.start - faultAt })),
  };
}

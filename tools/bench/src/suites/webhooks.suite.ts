import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { authorizeApp, createTestApp, createTestUser, eventually, quantile, startWebhookReceiver, type WebhookReceiver } from '@inkwell/testing';
import { migrateSchemas } from '../seed.runner.js';
import type { BenchContext, Suite } from '../suite.js';

/** Endpoints that answer at once, and the write rate spread over them (issue 28). */
const ENDPOINTS = 50;
const EVENTS_PER_SECOND = 200;
/** The measured window of each phase; `--duration` shortens it for a check. */
const WINDOW_SECONDS = 60;
/**
 * Writes at the same rate before the first phase, delivered before it starts and not measured:
 * every process's code is compiled and its pools are grown by then (the first 20 s of a cold
 * system delivered at about twice the latency of the rest).
 */
const WARMUP_SECONDS = 15;
/** The 51st endpoint answers each delivery this late (under the 10 s an attempt may take: it succeeds). */
const SLOW_ANSWER_MS = 9_000;
/** Target: delivery p95 ≤ 1 s from the write's answer, nothing lost. */
const P95_TARGET_MS = 1_000;
/** How long after the last write every delivery of the 50 must have arrived before the rest count as lost. */
const DRAIN_DEADLINE_MS = 120_000;
/** Writes in flight at most (open loop: a write is sent when due, whether the last one was answered or not). */
const WRITES_IN_FLIGHT = 64;
/** Setup calls (users, apps, endpoints) made at once. */
const SETUP_PARALLEL = 8;
/** Apps per owner (a user may own 25). */
const APPS_PER_OWNER = 20;

/** One endpoint of the benchmark: its receiver, its app, and the user whose private messages it gets. */
interface Target {
  readonly receiver: WebhookReceiver;
  readonly appId: string;
  /** The personal token of the app's owner (who manages its endpoint). */
  readonly ownerToken: string;
  readonly endpointId: string;
  readonly recipientId: string;
  /** The personal token (`write_pms`) of the user who writes to `recipientId`: one writer per endpoint (each caller may have 8 texts rendering at once). */
  readonly senderToken: string;
  /** Where the current phase's deliveries start in `receiver.received`: repeats are counted per phase. */
  phaseStart: number;
}

/** A write the API answered with 201: the message id, the endpoint it is for, and when the answer came. */
interface Acknowledged {
  readonly id: string;
  readonly target: Target;
  readonly answeredAt: number;
}

/** What one phase measured over the fast endpoints' deliveries. */
interface PhaseResult {
  readonly written: number;
  readonly writeErrors: number;
  readonly firstWriteError?: string;
  readonly writesPerSecond: number;
  readonly delivered: number;
  readonly lost: number;
  readonly duplicates: number;
  /** From the write's answer to the receiver having the whole delivery, ms. */
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** From the event's `timestamp` (occurred_at) to the arrival, wall clock, ms. */
  readonly p95FromEventMs: number;
  readonly load: string;
  /** The slow endpoint's writes and deliveries received within the phase and its drain, when it took part. */
  readonly slow?: { written: number; received: number };
}

/** Runs `work` over `items`, `parallel` at a time. */
async function inBatches<T, R>(items: readonly T[], parallel: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += parallel) results.push(...(await Promise.all(items.slice(i, i + parallel).map((item, j) => work(item, i + j)))));
  return results;
}

/** A JSON:API call as `token`; the parsed answer, throwing on another status than `status`. */
async function api(context: BenchContext, method: string, path: string, token: string, status: number, body?: unknown): Promise<{ data?: { id: string } }> {
  const response = await fetch(`${context.system.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status !== status) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text === '' ? {} : (JSON.parse(text) as { data?: { id: string } });
}

/**
 * One endpoint: a receiver on loopback, an app of `ownerId` with one endpoint subscribed to
 * `private_message.received` only, and a user who authorized that app (alone) with `read_pms`:
 * a message to that user is delivered to this endpoint and no other.
 */
async function createTarget(context: BenchContext, owner: { id: string; token: string }, answerAfterMs: number): Promise<Target> {
  const receiver = await startWebhookReceiver({ answerAfterMs });
  try {
    const appId = await createTestApp(context.system, owner.id, `webhooks bench ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`);
    const recipient = await createTestUser(context.system);
    const sender = await createTestUser(context.system, { scopes: ['write_pms'] });
    await authorizeApp(context.system, { clientId: appId, userId: recipient.id, scopes: ['read_pms'], expiresInSeconds: 24 * 3600 });
    const created = await api(context, 'POST', `/apps/${appId}/webhooks`, owner.token, 201, {
      data: { type: 'webhook_endpoint', attributes: { url: receiver.url, events: ['private_message.received'] } },
    });
    return { receiver, appId, ownerToken: owner.token, endpointId: created.data!.id, recipientId: recipient.id, senderToken: sender.token, phaseStart: 0 };
  } catch (error) {
    await receiver.close();
    throw error;
  }
}

/**
 * Sends private messages at `perSecond` for `windowMs`, open loop (each when due, at most
 * WRITES_IN_FLIGHT answered late), the n-th from `targets[n % targets.length]`'s writer to its
 * user, over keep-alive connections; returns the acknowledged writes.
 */
async function writeMessages(context: BenchContext, targets: readonly Target[], perSecond: number, windowMs: number): Promise<{ acknowledged: Acknowledged[]; errors: number; firstError?: string; elapsedMs: number }> {
  const base = new URL(context.system.apiUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: WRITES_IN_FLIGHT });
  const total = Math.round((perSecond * windowMs) / 1000);
  const acknowledged: Acknowledged[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const pending = new Set<Promise<void>>();
  const send = (n: number): Promise<void> => {
    const target = targets[n % targets.length]!;
    const body = JSON.stringify({ data: { type: 'private_message', attributes: { subject: `Bench ${n}`, content: `Webhook benchmark message ${n}.` } } });
    return new Promise<void>((resolve) => {
      const fail = (what: string) => {
        errors++;
        firstError ??= what;
        resolve();
      };
      const req = request(
        { agent, method: 'POST', host: base.hostname, port: base.port, path: `${base.pathname}/users/${target.recipientId}/private-messages`, headers: { authorization: `Bearer ${target.senderToken}`, 'content-type': 'application/vnd.api+json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => fail(String(error)));
          res.on('end', () => {
            const answeredAt = performance.now();
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 201) return fail(`${res.statusCode}: ${text.slice(0, 300)}`);
            acknowledged.push({ id: (JSON.parse(text) as { data: { id: string } }).data.id, target, answeredAt });
            resolve();
          });
        },
      );
      req.on('error', (error) => fail(String(error)));
      req.end(body);
    });
  };
  const started = performance.now();
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (pending.size >= WRITES_IN_FLIGHT) await Promise.race(pending);
    const write = send(n).finally(() => pending.delete(write));
    pending.add(write);
  }
  await Promise.all(pending);
  const elapsedMs = performance.now() - started;
  agent.destroy();
  return { acknowledged, errors, ...(firstError === undefined ? {} : { firstError }), elapsedMs };
}

/**
 * One phase: messages at EVENTS_PER_SECOND to the 50 fast endpoints' users (plus, when `slow` is
 * given, as many per second to its user as each fast one gets), then waits (bounded) until every
 * fast endpoint has every acknowledged message, and measures the fast endpoints' deliveries.
 */
async function runPhase(context: BenchContext, fast: readonly Target[], slow: Target | undefined, windowMs: number): Promise<PhaseResult> {
  const targets = slow === undefined ? fast : [...fast, slow];
  const perSecond = (EVENTS_PER_SECOND * targets.length) / fast.length;
  const writes = await writeMessages(context, targets, perSecond, windowMs);
  const fastWrites = writes.acknowledged.filter((write) => write.target !== slow);
  const arrived = () => fastWrites.filter((write) => write.target.receiver.countOf(write.id) > 0).length;
  try {
    await eventually(() => arrived() === fastWrites.length, { timeoutMs: DRAIN_DEADLINE_MS, intervalMs: 100, what: () => `all ${fastWrites.length} deliveries (${arrived()} so far)` });
  } catch {
    // The ones still missing are counted as lost.
  }
  const load = loadavg()[0]!.toFixed(1);
  const latencies: number[] = [];
  const fromEvent: number[] = [];
  for (const write of fastWrites) {
    const arrival = write.target.receiver.firstOf(write.id);
    if (arrival === undefined) continue;
    latencies.push(arrival.arrivedAt - write.answeredAt);
    fromEvent.push(arrival.arrivedAtMs - arrival.occurredAtMs);
  }
  latencies.sort((a, b) => a - b);
  fromEvent.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms);
  const slowWrites = slow === undefined ? [] : writes.acknowledged.filter((write) => write.target === slow);
  return {
    written: writes.acknowledged.length,
    writeErrors: writes.errors,
    ...(writes.firstError === undefined ? {} : { firstWriteError: writes.firstError }),
    writesPerSecond: Math.round((writes.acknowledged.length / writes.elapsedMs) * 1000),
    delivered: latencies.length,
    lost: fastWrites.length - latencies.length,
    duplicates: fast.reduce((sum, target) => sum + target.receiver.repeats(target.phaseStart), 0),
    p50Ms: round(quantile(latencies, 0.5)),
    p95Ms: round(quantile(latencies, 0.95)),
    p99Ms: round(quantile(latencies, 0.99)),
    maxMs: round(latencies.at(-1) ?? Number.NaN),
    p95FromEventMs: round(quantile(fromEvent, 0.95)),
    load,
    ...(slow === undefined ? {} : { slow: { written: slowWrites.length, received: slowWrites.filter((write) => slow.receiver.countOf(write.id) > 0).length } }),
  };
}

/** A phase's row of the report table. */
function row(label: string, result: PhaseResult): string {
  const p95 = result.p95Ms > P95_TARGET_MS ? `**${result.p95Ms}** (over ${P95_TARGET_MS})` : String(result.p95Ms);
  const lost = result.lost > 0 ? `**${result.lost}**` : '0';
  return `| ${label} | ${result.written} (${result.writesPerSecond}/s) | ${result.writeErrors} | ${result.delivered} | ${lost} | ${result.duplicates} | ${result.p50Ms} | ${p95} | ${result.p99Ms} | ${result.maxMs} | ${result.p95FromEventMs} | ${result.load} |`;
}

/**
 * Webhook deliveries (issue 28; docs/api/webhooks.md). Design: 50 apps (20 per owner), each with
 * one endpoint subscribed to `private_message.received` only, each authorized (with `read_pms`)
 * by one user of its own, and one receiver per endpoint on loopback in this process (the system
 * runs with `WEBHOOK_ALLOWED_HOSTS=127.0.0.1`). Private messages are written through the API at
 * 200/s, open loop, the n-th to the n-th user in turn (each user's by a writer of its own): every event goes to exactly one
 * endpoint, about 4 deliveries per second each and 200 per second in all (200 events/s each sent
 * to all 50 endpoints would be 10,000 deliveries/s, beyond a 2-core machine that also runs the
 * writers). Delivery latency: from the answer to the write to the receiver having read the whole
 * delivery (and, for comparison, from the event's `timestamp`); lost: acknowledged messages not
 * received within 2 min of the last write; duplicates: a `webhook-id` received twice. A second
 * phase adds a 51st endpoint whose receiver answers after 9 s, getting the same ≈4 messages/s,
 * and measures the 50 again. Both follow an unmeasured warm-up of the first phase's writes
 * (WARMUP_SECONDS). Every endpoint is deleted afterwards (with the slow one's backlog).
 * Nothing is seeded: the users and apps are made at run time (an empty database works).
 */
export const webhooksSuite: Suite = {
  name: 'webhooks',
  dataSet: `${ENDPOINTS} endpoints on loopback, ${EVENTS_PER_SECOND} private messages/s for ${WINDOW_SECONDS} s, each to one endpoint; then the same with a 51st endpoint answering in ${SLOW_ANSWER_MS / 1000} s`,
  systemEnv: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },

  async prepare(databaseUrl) {
    migrateSchemas(databaseUrl);
  },

  async report(context: BenchContext): Promise<string[]> {
    const windowMs = context.durationMs ?? WINDOW_SECONDS * 1000;
    const owners = await Promise.all(Array.from({ length: Math.ceil((ENDPOINTS + 1) / APPS_PER_OWNER) }, () => createTestUser(context.system)));
    const ownerOf = (index: number) => owners[Math.floor(index / APPS_PER_OWNER)]!;
    process.stderr.write(`    creating ${ENDPOINTS + 1} apps, authorizations, endpoints and receivers\n`);
    const targets: Target[] = [];
    try {
      targets.push(...(await inBatches(Array.from({ length: ENDPOINTS }), SETUP_PARALLEL, (_, index) => createTarget(context, ownerOf(index), 0))));
      const slow = await createTarget(context, ownerOf(ENDPOINTS), SLOW_ANSWER_MS);
      targets.push(slow);
      const fast = targets.slice(0, ENDPOINTS);
      const warmupMs = Math.min(WARMUP_SECONDS * 1000, windowMs);
      process.stderr.write(`    warm-up: ${EVENTS_PER_SECOND} messages/s for ${warmupMs / 1000} s, not measured\n`);
      await runPhase(context, fast, undefined, warmupMs);
      for (const target of fast) target.phaseStart = target.receiver.received.length;
      process.stderr.write(`    phase 1: ${ENDPOINTS} endpoints, ${EVENTS_PER_SECOND} messages/s for ${windowMs / 1000} s\n`);
      const alone = await runPhase(context, fast, undefined, windowMs);
      process.stderr.write(`    ${JSON.stringify(alone)}\n`);
      process.stderr.write(`    phase 2: the same with a 51st endpoint answering in ${SLOW_ANSWER_MS / 1000} s\n`);
      for (const target of fast) target.phaseStart = target.receiver.received.length;
      const withSlow = await runPhase(context, fast, slow, windowMs);
      process.stderr.write(`    ${JSON.stringify(withSlow)}\n`);
      const errors = [alone, withSlow].flatMap((result) => (result.firstWriteError === undefined ? [] : [result.firstWriteError]));
      return [
        `Date ${new Date().toISOString().slice(0, 10)}; machine: ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), the writers, the receivers, the gateway, every service, Postgres and Kafka all on it; ${windowMs / 1000} s per phase${windowMs === WINDOW_SECONDS * 1000 ? '' : ` (shortened from ${WINDOW_SECONDS} s: a check, not a result)`}, after ${warmupMs / 1000} s of the same writes (not measured) whose deliveries had all arrived.`,
        '',
        `Design: ${ENDPOINTS} apps (of ${APPS_PER_OWNER} per owner), each with one endpoint subscribed to \`private_message.received\` and authorized (\`read_pms\`) by one user of its own; one HTTP receiver per endpoint on loopback in the bench process (\`WEBHOOK_ALLOWED_HOSTS=127.0.0.1\`). Private messages are written through the API at ${EVENTS_PER_SECOND}/s, open loop, to the ${ENDPOINTS} users in turn (each by a writer of its own: a caller may have 8 texts rendering at once), so each event goes to exactly one endpoint (≈${EVENTS_PER_SECOND / ENDPOINTS} deliveries/s each, ${EVENTS_PER_SECOND}/s in all). Latency: from the answer to the write to the receiver having read the delivery; lost: acknowledged writes not received within ${DRAIN_DEADLINE_MS / 1000} s of the last; duplicates: a \`webhook-id\` received again. The second phase adds a 51st endpoint whose receiver answers after ${SLOW_ANSWER_MS / 1000} s, getting its own ≈${EVENTS_PER_SECOND / ENDPOINTS} messages/s; the columns are the ${ENDPOINTS} others'.`,
        '',
        '| phase | writes acknowledged | write errors | delivered | lost | duplicates | p50 ms | p95 ms | p99 ms | max ms | p95 from the event ms | load avg |',
        '|---|---|---|---|---|---|---|---|---|---|---|---|',
        row(`${ENDPOINTS} endpoints`, alone),
        row(`${ENDPOINTS} endpoints + 1 answering in ${SLOW_ANSWER_MS / 1000} s`, withSlow),
        '',
        `Target: p95 ≤ ${P95_TARGET_MS} ms from the write and 0 lost; the slow endpoint raises the others' p95 by ${withSlow.p95Ms - alone.p95Ms} ms. The slow endpoint itself (2 attempts in flight, each answered in ${SLOW_ANSWER_MS / 1000} s) received ${withSlow.slow?.received ?? 0} of its ${withSlow.slow?.written ?? 0} messages by the end of the phase; the rest were queued behind it and deleted with it.`,
        ...(errors.length === 0 ? [] : ['', `First write error: ${errors[0]!.replaceAll('|', '\\|')}`]),
      ];
    } finally {
      await inBatches(targets, SETUP_PARALLEL, async (target) => {
        await api(context, 'DELETE', `/apps/${target.appId}/webhooks/${target.endpointId}`, target.ownerToken, 204).catch((error: unknown) => process.stderr.write(`    could not delete endpoint ${target.endpointId}: ${String(error)}\n`));
        await target.receiver.close();
      });
    }
  },
};

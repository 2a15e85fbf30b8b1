import { authorizeApp, createTestApp, eventually, startWebhookReceiver, type WebhookReceiver } from '@inkwell/testing';
import { callApi, dataId, expectApi } from './api-client.js';
import type { FaultEnvironment } from './fault-environment.js';
import { kafkaStop, serviceKill, type Fault } from './faults.js';
import type { Actor } from './world.js';

/** A fault of a webhook step: what it breaks and for how long (no probe: deliveries are what is checked). */
export type WebhookFault = Pick<Fault, 'name' | 'downMs' | 'inject' | 'heal'>;

/** The webhook steps of a run (docs/reliability.md): the delivery service killed mid-burst, and the broker stopped `kafkaDownMs`. */
export function webhookFaults(kafkaDownMs: number): WebhookFault[] {
  const kill = serviceKill('webhooks');
  const kafka = kafkaStop(kafkaDownMs);
  return [
    { ...kill, name: 'webhooks (delivery service) killed (SIGKILL) mid-burst and restarted' },
    { ...kafka, name: `${kafka.name} mid-burst (webhook deliveries)` },
  ];
}

/** What one webhook step saw, as docs/reliability.md reports it. */
export interface WebhookFaultReport {
  readonly fault: string;
  /** Private messages the API acknowledged (201) during the burst: each must be delivered. */
  readonly acknowledged: number;
  /** Writes of the burst that were not acknowledged (not expected to be delivered). */
  readonly writeErrors: number;
  /** Acknowledged messages received at least once. */
  readonly delivered: number;
  /** Acknowledged messages never received within the deadline. */
  readonly lost: number;
  /** Deliveries beyond the first of a message (allowed: at least once). */
  readonly duplicates: number;
  /** Seconds from healing until the last acknowledged message was delivered; undefined when some never were. */
  readonly deliveredSeconds: number | undefined;
}

/** Options of {@link runWebhookFault}. */
export interface WebhookFaultOptions {
  /** Private messages sent per second during the burst. */
  readonly ratePerSecond: number;
  /** Burst before the fault, and after healing. */
  readonly beforeMs: number;
  readonly afterMs: number;
  /** How long after the burst every delivery may take before the missing ones count as lost. */
  readonly deliveryTimeoutMs: number;
}

/**
 * The receiving side of the webhook steps: a receiver on loopback, an app of the first actor
 * with one endpoint subscribed to `private_message.received`, which every actor authorized with
 * `read_pms`, so that every private message between actors is delivered to it once (at least).
 */
export class WebhookWatch {
  private constructor(
    readonly receiver: WebhookReceiver,
    private readonly env: FaultEnvironment,
    private readonly owner: Actor,
    private readonly appId: string,
    private readonly endpointId: string,
  ) {}

  /** Sets the app, its authorizations, the receiver and the endpoint up. */
  static async create(env: FaultEnvironment, actors: readonly Actor[]): Promise<WebhookWatch> {
    const owner = actors[0]!;
    const receiver = await startWebhookReceiver();
    try {
      const appId = await createTestApp(env.system, owner.id, `faults webhooks ${Date.now().toString(36)}`);
      for (const actor of actors) await authorizeApp(env.system, { clientId: appId, userId: actor.id, scopes: ['read_pms'], expiresInSeconds: 24 * 3600 });
      const created = await expectApi(
        env.system.apiUrl,
        { method: 'POST', path: `/apps/${appId}/webhooks`, token: owner.token, body: { data: { type: 'webhook_endpoint', attributes: { url: receiver.url, events: ['private_message.received'] } } } },
        201,
      );
      const endpointId = dataId(created);
      if (endpointId === undefined) throw new Error('POST /apps/:app_id/webhooks returned no id');
      return new WebhookWatch(receiver, env, owner, appId, endpointId);
    } catch (error) {
      await receiver.close();
      throw error;
    }
  }

  /** Deletes the endpoint (best effort: the environment goes away anyway) and closes the receiver. */
  async close(): Promise<void> {
    await callApi(this.env.system.apiUrl, { method: 'DELETE', path: `/apps/${this.appId}/webhooks/${this.endpointId}`, token: this.owner.token });
    await this.receiver.close();
  }
}

/**
 * One webhook step: private messages between the actors at `ratePerSecond` (each to be delivered
 * to the watch's endpoint), the fault injected `beforeMs` into the burst, held, healed, the burst
 * going on `afterMs` more; then waits (bounded) until every acknowledged message was received,
 * and counts the lost and the duplicates.
 */
export async function runWebhookFault(env: FaultEnvironment, watch: WebhookWatch, actors: readonly Actor[], fault: WebhookFault, options: WebhookFaultOptions): Promise<WebhookFaultReport> {
  const acknowledged: string[] = [];
  let writeErrors = 0;
  let bursting = true;
  const writes = new Set<Promise<void>>();
  const burst = (async () => {
    const started = Date.now();
    for (let n = 0; bursting; n++) {
      const wait = started + (n * 1000) / options.ratePerSecond - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // Each actor writes in turn to the next (a caller may have 8 texts rendering at once).
      const sender = actors[n % actors.length]!;
      const recipient = actors[(n + 1) % actors.length]!;
      const write = callApi(env.system.apiUrl, {
        method: 'POST',
        path: `/users/${recipient.id}/private-messages`,
        token: sender.token,
        body: { data: { type: 'private_message', attributes: { subject: 'Webhook burst', content: `Message ${n} of the burst.` } } },
      }).then((answer) => {
        const id = dataId(answer);
        if (answer.status === 201 && id !== undefined) acknowledged.push(id);
        else writeErrors++;
      });
      const tracked = write.finally(() => writes.delete(tracked));
      writes.add(tracked);
    }
    await Promise.all(writes);
  })();
  let healedAt: number;
  try {
    await new Promise((resolve) => setTimeout(resolve, options.beforeMs));
    await fault.inject(env);
    if (fault.downMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.downMs));
    await fault.heal(env);
    healedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, options.afterMs));
  } finally {
    bursting = false;
    await burst;
  }
  const received = () => acknowledged.filter((id) => watch.receiver.countOf(id) > 0).length;
  let deliveredSeconds: number | undefined;
  try {
    await eventually(() => received() === acknowledged.length, { timeoutMs: options.deliveryTimeoutMs, intervalMs: 200, what: () => `every acknowledged message delivered (${received()} of ${acknowledged.length})` });
    deliveredSeconds = Math.max(0, ((watch.receiver.received.at(-1)?.arrivedAtMs ?? 0) - healedAt) / 1000);
  } catch {
    deliveredSeconds = undefined;
  }
  const delivered = received();
  return {
    fault: fault.name,
    acknowledged: acknowledged.length,
    writeErrors,
    delivered,
    lost: acknowledged.length - delivered,
    duplicates: acknowledged.reduce((sum, id) => sum + Math.max(0, watch.receiver.countOf(id) - 1), 0),
    deliveredSeconds,
  };
}

/** The webhook steps' Markdown table. */
export function webhookTable(reports: readonly WebhookFaultReport[]): string {
  return [
    '| webhook step | messages acknowledged | write errors | delivered | lost | duplicates (at least once) | all delivered s after healing |',
    '|---|---|---|---|---|---|---|',
    ...reports.map((r) => `| ${r.fault} | ${r.acknowledged} | ${r.writeErrors} | ${r.delivered} | ${r.lost} | ${r.duplicates} | ${r.deliveredSeconds?.toFixed(1) ?? 'no'} |`),
  ].join('\n');
}

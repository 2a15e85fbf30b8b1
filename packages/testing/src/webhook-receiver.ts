import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a webhook receiver got. */
export interface ReceivedDelivery {
  /** Its headers, names in lower case (`webhook-id`, `webhook-signature`, …). */
  readonly headers: Record<string, string>;
  /** The body exactly as sent (what a signature covers). */
  readonly body: string;
  /** `data.id` of the payload (for `private_message.received`, the message id); undefined for a body that is not a delivery. */
  readonly resourceId?: string;
  /** The payload's `timestamp` in ms since the epoch; NaN without one. */
  readonly occurredAtMs: number;
  /** `performance.now()` when the body had been read whole, and the wall clock then (ms since the epoch). */
  readonly arrivedAt: number;
  readonly arrivedAtMs: number;
}

/** A real webhook receiver on loopback (test and benchmark systems allowlist 127.0.0.1). */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks`. */
  readonly url: string;
  /** Every delivery answered so far, in arrival order (not those refused while down). */
  readonly received: readonly ReceivedDelivery[];
  /** The first delivery of resource `resourceId`; undefined before it arrives. */
  firstOf(resourceId: string): ReceivedDelivery | undefined;
  /** How many deliveries of resource `resourceId` arrived (more than one: delivered again, at least once). */
  countOf(resourceId: string): number;
  /** Deliveries from index `since` of `received` on whose `webhook-id` came before in that range: the repeats of at-least-once. */
  repeats(since?: number): number;
  /** While down, every request is answered 503 and not recorded. */
  setDown(down: boolean): void;
  /** While held, requests get no answer (a receiver that hangs); releasing answers the waiting ones. */
  setHeld(held: boolean): void;
  /** Requests that arrived while held and still wait for their answer. */
  waiting(): number;
  close(): Promise<void>;
}

/** How a receiver answers. */
export interface WebhookReceiverOptions {
  /** Answer each delivery only after this long (a slow receiver); default at once. */
  answerAfterMs?: number;
}

/**
 * Starts a webhook receiver on 127.0.0.1 that records every POST and answers 204: the one
 * receiver of the webhooks tests, the gateway's end-to-end tests, the benchmark and the fault run.
 */
export async function startWebhookReceiver(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const byResource = new Map<string, ReceivedDelivery[]>();
  const parked: Array<() => void> = [];
  const timers = new Set<NodeJS.Timeout>();
  let down = false;
  let held = false;
  const answer = (respond: () => void) => {
    const delay = options.answerAfterMs ?? 0;
    if (delay <= 0) return respond();
    const timer = setTimeout(() => {
      timers.delete(timer);
      respond();
    }, delay);
    timers.add(timer);
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (held) {
        parked.push(() => response.writeHead(204).end());
        return;
      }
      if (down) {
        response.writeHead(503).end();
        return;
      }
      const delivery = readDelivery(request.headers, Buffer.concat(chunks).toString('utf8'));
      received.push(delivery);
      if (delivery.resourceId !== undefined) {
        const deliveries = byResource.get(delivery.resourceId) ?? [];
        deliveries.push(delivery);
        byResource.set(delivery.resourceId, deliveries);
      }
      answer(() => response.writeHead(204).end());
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    firstOf: (resourceId) => byResource.get(resourceId)?.[0],
    countOf: (resourceId) => byResource.get(resourceId)?.length ?? 0,
    repeats(since = 0) {
      const ids = new Set<string>();
      let repeated = 0;
      for (const delivery of received.slice(since)) {
        const id = delivery.headers['webhook-id'] ?? '';
        if (ids.has(id)) repeated++;
        ids.add(id);
      }
      return repeated;
    },
    setDown: (value) => {
      down = value;
    },
    setHeld: (value) => {
      held = value;
      if (!held) for (const release of parked.splice(0)) release();
    },
    waiting: () => parked.length,
    close: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readDelivery(headers: NodeJS.Dict<string | string[]>, body: string): ReceivedDelivery {
  const arrivedAt = performance.now();
  const arrivedAtMs = Date.now();
  const flat = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
  try {
    const payload = JSON.parse(body) as { timestamp?: string; data?: { id?: unknown } };
    const id = payload.data?.id;
    return { headers: flat, body, ...(typeof id === 'string' ? { resourceId: id } : {}), occurredAtMs: Date.parse(payload.timestamp ?? ''), arrivedAt, arrivedAtMs };
  } catch {
    return { headers: flat, body, occurredAtMs: Number.NaN, arrivedAt, arrivedAtMs };
  }
}

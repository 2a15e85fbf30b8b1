import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery a receiver got: its headers (lower-case names) and its body as sent. */
export interface ReceivedDelivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A real webhook receiver on loopback (the tests' systems allowlist 127.0.0.1). */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hooks`. */
  readonly url: string;
  /** Every POST so far, in arrival order. */
  readonly received: readonly ReceivedDelivery[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 that records every request and answers 204 at once. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])), body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A real webhook receiver on loopback (allowlisted in the tests' systems). */
export interface Receiver {
  url: string;
  received: Received[];
  /** Answer 503 to everything while down. */
  setDown(down: boolean): void;
  /** While held, requests get no answer (a receiver that hangs); releasing answers the waiting ones. */
  setHeld(held: boolean): void;
  /** Requests that arrived while held and still wait for their answer. */
  waiting(): number;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 that records every POST and answers 204 (or 503 while down). */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let down = false;
  let held = false;
  const parked: Array<() => void> = [];
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
      received.push({ headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])), body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    setDown: (value) => {
      down = value;
    },
    setHeld: (value) => {
      held = value;
      if (!held) for (const answer of parked.splice(0)) answer();
    },
    waiting: () => parked.length,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import { connect, createServer, type Socket } from 'node:net';

/** A local TCP endpoint a test controls: it refuses connections, or forwards them to a target. */
export interface TcpProxy {
  /** `127.0.0.1:<port>`: give it to the process under test instead of the real address. */
  readonly address: string;
  /** Connections accepted so far (refused or forwarded). */
  readonly connections: number;
  /** From now on, forwards new connections to `target` (`host:port`). */
  forward(target: string): void;
  /** From now on, resets new connections at once, and resets those it is forwarding. */
  refuse(): void;
  /** Stops listening and resets every open connection. */
  close(): Promise<void>;
}

/**
 * Starts a TCP proxy on a free local port that refuses every connection (accepts and resets it,
 * as a dead server's host would) until `forward(target)` is called. Tests use it to start a
 * process against a dependency that is down, and later bring the dependency back, without
 * touching the shared one: e.g. a service whose KAFKA_BROKERS is the proxy's address. Only the
 * first connection needs it for Kafka: the broker then tells clients its own address.
 */
export async function startTcpProxy(): Promise<TcpProxy> {
  let target: { host: string; port: number } | undefined;
  let connections = 0;
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    connections += 1;
    track(client);
    if (target === undefined) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no TCP address');
  const resetAll = () => {
    for (const socket of open) socket.resetAndDestroy();
  };
  return {
    address: `127.0.0.1:${address.port}`,
    get connections() {
      return connections;
    },
    forward(to) {
      const separator = to.lastIndexOf(':');
      const port = Number(to.slice(separator + 1));
      if (separator <= 0 || !Number.isInteger(port) || port <= 0 || port > 65_535) throw new Error(`not a host:port address: ${to}`);
      target = { host: to.slice(0, separator), port };
    },
    refuse() {
      target = undefined;
      resetAll();
    },
    close() {
      resetAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

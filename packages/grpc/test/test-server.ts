import { createServer } from 'node:net';
import { createLogger, type Logger } from '@inkwell/logging';
import { ProbeService } from '@inkwell/proto/testing';
import { createGrpcServer, type GrpcServer, type ServiceImpl } from '../src/index.js';

/** One log call as the server made it: level name, the logger's bindings, the object and message. */
export interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  msg: string | undefined;
}

/** A logger that records every line (debug and up) in `lines` and prints nothing. */
export function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger('grpc-test', {
    level: 'debug',
    hooks: {
      logMethod(args, _method, level) {
        const [first, second] = args as unknown[];
        const obj = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
        const msg = typeof first === 'string' ? first : typeof second === 'string' ? second : undefined;
        lines.push({ level: this.levels.labels[level] ?? String(level), fields: { ...this.bindings(), ...obj }, msg });
      },
    },
  });
  return { logger, lines };
}

type GetUser = ServiceImpl<typeof ProbeService>['getUser'];

/** A ProbeService server on a free loopback port whose getUser does whatever `handler` is set to. */
export interface TestServer {
  server: GrpcServer;
  address: string;
  lines: LogLine[];
  setGetUser(handler: GetUser): void;
}

/** Starts a real server on 127.0.0.1:0 serving ProbeService (plus the built-in health service). */
export async function startTestServer(): Promise<TestServer> {
  const { logger, lines } = recordingLogger();
  let getUser: GetUser = async () => {
    throw new Error('no handler set');
  };
  const server = createGrpcServer({ logger }).add(ProbeService, {
    getUser: (request, ctx) => getUser(request, ctx),
  });
  const port = await server.listen('127.0.0.1:0');
  return {
    server,
    address: `127.0.0.1:${port}`,
    lines,
    setGetUser(handler) {
      getUser = handler;
    },
  };
}

/** A loopback port that nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A promise with its resolve function (Promise.withResolvers needs Node 22). */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

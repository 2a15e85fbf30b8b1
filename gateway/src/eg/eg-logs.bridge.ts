import { Writable } from 'node:stream';
import type { Logger } from '@inkwell/logging';

/** The part of a winston 3 logger the bridge touches. */
interface WinstonLogger {
  level: string;
  clear(): unknown;
  add(transport: unknown): unknown;
}

const LEVEL = Symbol.for('level');

/** pino level → the winston level that lets exactly the lines through that pino would print. */
const WINSTON_LEVEL: Readonly<Record<string, string>> = {
  trace: 'silly',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'error',
  silent: 'error',
};

/** winston level → pino method. */
const PINO_METHOD: Readonly<Record<string, 'trace' | 'debug' | 'info' | 'warn' | 'error'>> = {
  error: 'error',
  warn: 'warn',
  info: 'info',
  http: 'debug',
  verbose: 'debug',
  debug: 'debug',
  silly: 'trace',
};

/**
 * Routes express-gateway's own winston loggers (`gateway`, `policy`, `config`, `db`, `admin`,
 * `plugins`) into our pino logger, so the process writes one JSON log stream. Each line keeps
 * express-gateway's label as `component` (`[EG:gateway]`). Must run before express-gateway
 * starts: its loggers are module singletons created on first require.
 */
export function bridgeExpressGatewayLogs(egLoggers: Readonly<Record<string, unknown>>, logger: Logger): void {
  const winstonLevel = WINSTON_LEVEL[logger.level] ?? 'info';
  for (const [name, candidate] of Object.entries(egLoggers)) {
    if (!isWinstonLogger(candidate)) continue;
    const component = `eg:${name}`;
    const sink = new Writable({
      objectMode: true,
      write(info: Record<string | symbol, unknown>, _encoding, callback) {
        const method = PINO_METHOD[String(info[LEVEL])] ?? 'info';
        logger[method]({ component }, String(info.message));
        callback();
      },
    });
    // winston 3 treats a stream whose `log` takes at most two arguments as a modern transport.
    Object.assign(sink, { log: (_info: unknown, callback: () => void) => callback() });
    candidate.clear();
    candidate.add(sink);
    candidate.level = winstonLevel;
  }
}

function isWinstonLogger(value: unknown): value is WinstonLogger {
  return typeof value === 'object' && value !== null && typeof (value as WinstonLogger).clear === 'function' && typeof (value as WinstonLogger).add === 'function';
}

import type { Logger } from 'pino';
import { createLogger } from './index.js';

/** One line a recording logger took: its level name (`warn`, `error`, …), the logger's bindings with the logged object, and the message. */
export interface LogLine {
  level: string;
  fields: Record<string, unknown>;
  msg: string | undefined;
}

/** A logger of `service` that records every line (debug and up) in `lines` and prints nothing: for tests that assert what a process logs. */
export function createRecordingLogger(service: string): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger(service, {
    level: 'debug',
    hooks: {
      logMethod(args, _method, level) {
        const [first, second] = args as unknown[];
        const logged = typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : {};
        const msg = typeof first === 'string' ? first : typeof second === 'string' ? second : undefined;
        lines.push({ level: this.levels.labels[level] ?? String(level), fields: { ...this.bindings(), ...logged }, msg });
      },
    },
  });
  return { logger, lines };
}

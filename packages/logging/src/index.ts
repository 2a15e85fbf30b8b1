import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * Creates the structured JSON logger of a process. `service` names the process in every line;
 * the level comes from LOG_LEVEL (default `info`; `silent` in tests). Secrets that may appear
 * in logged objects (authorization headers, passwords, tokens) are redacted.
 */
export function createLogger(service: string, options: LoggerOptions = {}): Logger {
  return pino({
    level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['*.authorization', '*.password', '*.token', '*.access_token', '*.refresh_token', '*.client_secret', 'req.headers.authorization', 'req.headers.cookie'],
      censor: '[redacted]',
    },
    ...options,
  });
}

export { createRecordingLogger, type LogLine } from './recording.js';
